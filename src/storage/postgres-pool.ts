import type { PostgresPool, PostgresPoolClient } from 'kysely'
import type pg from 'pg'
import { statementName } from './prepared.js'

/**
 * The pool Kysely sees: pg's, except that the hot-path queries compiled by prepareQuery run as
 * named statements, which PostgreSQL parses and plans once per connection instead of every time.
 */
export function withNamedStatements(pool: pg.Pool): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect()
      const query = (sqlOrCursor: unknown, parameters?: ReadonlyArray<unknown>) => {
        if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor as pg.Submittable)
        const values = parameters as unknown[]
        const name = statementName(sqlOrCursor)
        return name ? client.query({ name, text: sqlOrCursor, values }) : client.query(sqlOrCursor, values)
      }
      return { query: query as unknown as PostgresPoolClient['query'], release: () => client.release() }
    },
    end: () => pool.end(),
  }
}
