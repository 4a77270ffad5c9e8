import { createHash } from 'node:crypto'
import { type Compilable, CompiledQuery, type Kysely, PostgresAdapter, type QueryCreator } from 'kysely'
import type { Dialect } from './database.js'
import type { Schema } from './schema.js'

// Hot-path queries are built with Kysely like any other, but built and compiled once per
// (dialect, shape) instead of once per call: building and compiling costs about as much as
// running a simple statement. Values are passed as slots, replaced by the real values at run time.

/** SQL texts of prepared queries, by text: their PostgreSQL statement names. */
const statementNames = new Map<string, string>()

/**
 * The server-side statement name for SQL compiled by prepareQuery, so PostgreSQL parses and plans
 * it once per connection; undefined for any other SQL.
 */
export const statementName = (sqlText: string): string | undefined => statementNames.get(sqlText)

class Slot {
  constructor(readonly name: string) {}
}

/**
 * In the builder, each argument is a slot standing for its value (typed as the value). Read
 * arguments by name: the proxy has no keys to spread.
 */
const slotsProxy = new Proxy({}, { get: (_, name) => new Slot(String(name)) })

export interface PreparedQuery<A, R> {
  run(db: Kysely<Schema>, args: A): Promise<R[]>
}

/** The dialect a Kysely instance (or transaction) speaks. */
export const dialectOf = (db: Kysely<Schema>): Dialect =>
  db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite'

/**
 * `build` must depend on `shape` only, never on argument values; `shapeOf` names the variant
 * (for example which optional columns an upsert sets).
 */
export function prepareQuery<A extends object, R>(
  build: (db: QueryCreator<Schema>, args: A, shape: string, dialect: Dialect) => Compilable<R>,
  shapeOf: (args: A) => string = () => '',
): PreparedQuery<A, R> {
  const compiled = new Map<string, CompiledQuery<R>>()
  return {
    async run(db, args) {
      const dialect = dialectOf(db)
      const shape = shapeOf(args)
      const key = `${dialect}\u0000${shape}`
      let query = compiled.get(key)
      if (!query) {
        query = build(db, slotsProxy as A, shape, dialect).compile()
        compiled.set(key, query)
        statementNames.set(
          query.sql,
          `parley_${createHash('sha1').update(query.sql).digest('hex').slice(0, 20)}`,
        )
      }
      const values = args as Record<string, unknown>
      const parameters = query.parameters.map((p) => (p instanceof Slot ? values[p.name] : p))
      const result = await db.executeQuery(CompiledQuery.raw(query.sql, parameters) as CompiledQuery<R>)
      return result.rows
    },
  }
}
