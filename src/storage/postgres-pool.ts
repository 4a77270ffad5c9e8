import type { PostgresPool, PostgresPoolClient } from 'kysely'
import type pg from 'pg'
import { statementName } from './prepared.js'

// PostgreSQL refuses a named statement whose result columns changed under it (another instance
// migrated the table): such a connection is dropped instead of reused, so the failure happens
// once per connection, not on every later query.
const STALE_PLAN = 'cached plan must not change result type'

/**
 * The pool Kysely sees: pg's, except that the hot-path queries compiled by prepareQuery run as
 * named statements, which PostgreSQL parses and plans once per connection instead of every time;
 * and that a connection which breaks while checked out (a restart, pg_terminate_backend, a
 * failover) is heard and dropped instead of crashing the process: pg-pool listens for errors only
 * on idle clients, and an 'error' event nobody listens to ends a Node process.
 */
export function withNamedStatements(pool: pg.Pool): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect()
      let stale = false
      let broken: Error | undefined
      const onError = (error: Error) => {
        broken = error
      }
      client.on('error', onError)
      const query = (sqlOrCursor: unknown, parameters?: ReadonlyArray<unknown>) => {
        if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor as pg.Submittable)
        const values = parameters as unknown[]
        const name = statementName(sqlOrCursor)
        const result = name
          ? client.query({ name, text: sqlOrCursor, values })
          : client.query(sqlOrCursor, values)
        return result.catch((error: Error) => {
          if (error.message?.includes(STALE_PLAN)) stale = true
          throw error
        })
      }
      const release = () => {
        client.removeListener('error', onError)
        // pg-pool destroys a client released with an error (or `true`) instead of reusing it.
        client.release(broken ?? stale)
      }
      return { query: query as unknown as PostgresPoolClient['query'], release }
    },
    end: () => pool.end(),
  }
}
