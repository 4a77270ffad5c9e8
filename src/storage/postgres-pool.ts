import type { PostgresPool, PostgresPoolClient } from 'kysely'
import type pg from 'pg'
import { statementName } from './prepared.js'

// PostgreSQL refuses a named statement whose result columns changed under it (another instance
// migrated the table): such a connection is dropped instead of reused, so the failure happens
// once per connection, not on every later query.
const STALE_PLAN = 'cached plan must not change result type'

/**
 * The pool Kysely sees: pg's, except that, with `namedStatements`, the hot-path queries compiled
 * by prepareQuery run as named statements, which PostgreSQL parses once per connection instead of
 * every time (without, as unnamed ones, which a pooler in transaction mode passes on); where
 * PostgreSQL settles on a plan for any values, it plans them on their first runs only
 * (store-in-room.ts). And a connection which breaks (a restart, pg_terminate_backend, a failover)
 * is dropped instead of crashing the process or being lent out again.
 */
export function forKysely(pool: pg.Pool, { namedStatements }: { namedStatements: boolean }): PostgresPool {
  const broken = brokenClients(pool)
  return {
    async connect() {
      const client = await pool.connect()
      let doomed = false
      const query = (sqlOrCursor: unknown, parameters?: ReadonlyArray<unknown>) => {
        if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor as pg.Submittable)
        const values = parameters as unknown[]
        const name = namedStatements ? statementName(sqlOrCursor) : undefined
        const result = name
          ? client.query({ name, text: sqlOrCursor, values })
          : client.query(sqlOrCursor, values)
        return result.catch((error: Error) => {
          doomed ||= leavesConnectionUnusable(sqlOrCursor, error)
          throw error
        })
      }
      // pg-pool destroys a client released with an error (or `true`) instead of lending it again.
      const release = () => client.release(broken.get(client) ?? doomed)
      return { query: query as unknown as PostgresPoolClient['query'], release }
    },
    end: () => pool.end(),
  }
}

/**
 * Every client of `pool` hears its errors for its whole life. pg-pool listens only while a client
 * is idle, and hands a new one over with no listener: when the server's last messages (ready for
 * query, then a FATAL such as 57P01 from pg_terminate_backend) arrive in one packet, the error is
 * emitted before the borrower could listen, and an 'error' event nobody hears ends a Node process.
 * The 'connect' event comes before pg-pool hands the client over, so nothing falls between.
 */
function brokenClients(pool: pg.Pool): WeakMap<pg.PoolClient, Error> {
  const broken = new WeakMap<pg.PoolClient, Error>()
  pool.on('connect', (client) => {
    client.on('error', (error: Error) => broken.set(client, error))
  })
  return broken
}

/**
 * Whether a failed query leaves its connection unfit to lend again: a ROLLBACK that failed leaves
 * the transaction's state unknown (it may still be open, or aborted), an error that is not
 * the server's answer came from the connection rather than the server, and a stale plan fails every time.
 */
function leavesConnectionUnusable(sql: string, error: Error & { severity?: unknown }): boolean {
  // pg's DatabaseError, an answer of the server, carries its severity; the others do not.
  const fromServer = typeof error.severity === 'string'
  return !fromServer || /^\s*rollback\b/i.test(sql) || error.message?.includes(STALE_PLAN) === true
}
