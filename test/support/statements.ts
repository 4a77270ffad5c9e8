import { type CompiledQuery, DefaultQueryExecutor } from 'kysely'

/** The SQL of every query Kysely runs in this process from now until the returned stop(). */
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
      return statements
    },
  }
}
