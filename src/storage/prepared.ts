import { createHash } from 'node:crypto'
import { type Compilable, type CompiledQuery, type Kysely, PostgresAdapter, type QueryCreator } from 'kysely'
import type { Dialect, Schema } from './schema.js'
import { spareRoomReads } from './write-marks.js'

// Hot-path queries are built with Kysely like any other, but built and compiled once per
// (dialect, shape) instead of once per call: building and compiling costs about as much as
// running a simple statement. Values are passed as slots, replaced by the real values at run time.
// So a builder must not look at values: it would build every later call's SQL from the first
// call's values. A slot used as a value in JavaScript (made a string or a number, compared with
// < or >, spread) throws while building; a branch on a slot (`if (args.lock)`: a slot is always
// truthy) cannot be seen, hence shapes. (Building again with the real values and comparing is no
// check: Kysely itself inlines some numbers, a CASE's ELSE for one, that it binds for a slot.)

/** SQL texts of prepared queries, by text: their PostgreSQL statement names. */
const statementNames = new Map<string, string>()

/**
 * The server-side statement name for SQL compiled by prepareQuery, so PostgreSQL parses it once
 * per connection (and plans it on its first runs only, if it settles on a plan for any values);
 * undefined for any other SQL.
 */
export const statementName = (sqlText: string): string | undefined => statementNames.get(sqlText)

export class Slot {
  constructor(readonly name: string) {}

  [Symbol.toPrimitive](): never {
    throw new Error(`a prepared query's builder used the value of argument ${this.name}: use shapeOf`)
  }
}

/**
 * In the builder, each argument is a slot standing for its value (typed as the value). Read
 * arguments by name: the proxy has no keys to spread.
 */
const slotsProxy = new Proxy(
  {},
  {
    get: (_, name) => new Slot(String(name)),
    ownKeys: () => {
      throw new Error("a prepared query's builder spread or listed its arguments: name each one")
    },
  },
)

export interface PreparedQueryOptions<A> {
  /** Names the variant of SQL the arguments need (e.g. which optional columns an upsert sets). */
  shapeOf?: (args: A) => string
  /** The shapes `npm run sql` lists (default: the one shape, ''). */
  shapes?: readonly string[]
  /** The one dialect it is built for, when its callers pick a query per dialect. */
  dialect?: Dialect
  /**
   * It writes only columns a message send does not rely on in its room read, which a cache of
   * such reads may then keep (write-marks.ts).
   */
  sparesRoomReads?: boolean
}

export interface PreparedQuery<A, R> {
  run(db: Kysely<Schema>, args: A): Promise<R[]>
}

/** A prepared query as `npm run sql` sees it: compiled with slots, never run. */
export interface ListedQuery {
  /** `<module>.<query>`: listed in sql/<dialect>/<module>.sql. */
  name: string
  dialect: Dialect | undefined
  shapes: readonly string[]
  compile(db: Kysely<Schema>, shape: string): CompiledQuery
}

/** Every prepared query of the modules imported so far, by name. */
const registry = new Map<string, ListedQuery>()

export const preparedQueries = (): Iterable<ListedQuery> => registry.values()

/** The dialect a Kysely instance (or transaction) speaks. */
export const dialectOf = (db: Kysely<Schema>): Dialect =>
  db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite'

/**
 * `name` is `<module>.<query>`. `build` must depend on the shape only, never on argument values.
 */
export function prepareQuery<A extends object, R>(
  name: string,
  build: (db: QueryCreator<Schema>, args: A, shape: string, dialect: Dialect) => Compilable<R>,
  { shapeOf = () => '', shapes = [''], dialect: only, sparesRoomReads }: PreparedQueryOptions<A> = {},
): PreparedQuery<A, R> {
  if (registry.has(name)) throw new Error(`two prepared queries are named ${name}`)
  const compile = (db: Kysely<Schema>, shape: string) =>
    build(db, slotsProxy as A, shape, dialectOf(db)).compile() as CompiledQuery<R>
  registry.set(name, { name, dialect: only, shapes, compile })

  const compiled = new Map<string, CompiledQuery<R>>()
  return {
    async run(db, args) {
      const dialect = dialectOf(db)
      if (only && dialect !== only) throw new Error(`prepared query ${name} is for ${only} only`)
      const shape = shapeOf(args)
      const key = `${dialect}\u0000${shape}`
      let query = compiled.get(key)
      if (!query) {
        query = compile(db, shape)
        compiled.set(key, query)
        if (sparesRoomReads) spareRoomReads(query.sql)
        statementNames.set(
          query.sql,
          `parley_${createHash('sha1').update(query.sql).digest('hex').slice(0, 20)}`,
        )
      }
      const values = args as Record<string, unknown>
      const parameters = query.parameters.map((p) => (p instanceof Slot ? values[p.name] : p))
      // The compiled query with this call's values (a raw one per call made a node and an ID).
      const result = await db.executeQuery<R>({ ...query, parameters })
      return result.rows
    },
  }
}
