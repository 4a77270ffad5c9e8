import { type CompiledQuery, DefaultQueryExecutor } from 'kysely'

/** What a server runs on its own timers, whatever the requests: due scheduled messages, ID leases. */
const TIMED_ROUNDS = /"(scheduled_messages|id_worker_leases)"/

/**
 * The SQL of every query Kysely runs in this process from now until the returned stop(), but for
 * the servers' timed rounds (which may run during any request, and are not its statements).
 */
export function recordStatements() {
  const base = Object.getPrototypeOf(DefaultQueryExecutor.prototype)
  const original = base.executeQuery
  const statements: string[] = []
  base.executeQuery = function (this: unknown, query: CompiledQuery, ...rest: unknown[]) {
    statements.push(query.sql)
    return original.call(this, query, ...rest)
  }
  return {
    stop: () => {
      base.executeQuery = original
      return statements.filter((sql) => !TIMED_ROUNDS.test(sql))
    },
  }
}
