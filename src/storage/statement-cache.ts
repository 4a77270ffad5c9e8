import type SQLite from 'better-sqlite3'
import type { SqliteDatabase, SqliteStatement } from 'kysely'
import { literalOf } from './row-literals.js'

const CACHE_SIZE = 500

/**
 * Kysely's SQLite driver prepares every query afresh, which costs about as much as running it.
 * This keeps the most recently used prepared statements by SQL text (least recently used out).
 */
export function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>()
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = statements.get(sql)
      if (statement) {
        statements.delete(sql)
      } else {
        statement = withRowsBuiltHere(sqlite.prepare(sql))
        if (statements.size >= CACHE_SIZE) statements.delete(statements.keys().next().value as string)
      }
      statements.set(sql, statement)
      return statement
    },
  }
}

/**
 * A statement whose rows are made into objects here, from better-sqlite3's arrays of values:
 * better-sqlite3 sets each column on each row through V8's C++ API, which took 16 of the 37 µs a
 * room read (two rows of 29 columns) cost; a loop in JavaScript took about 2, an object literal
 * (literalOf) a tenth of that loop's time in a micro-benchmark. The rows are the same: one
 * property per column name, a name given twice holding the later column.
 */
function withRowsBuiltHere(statement: SQLite.Statement): SqliteStatement {
  if (!statement.reader) return statement
  const rowOf = literalOf<unknown[]>(statement.columns().map((column, i) => [column.name, i]))
  statement.raw(true)
  return {
    reader: true,
    all: (parameters) => (statement.all(parameters) as unknown[][]).map(rowOf),
    run: (parameters) => statement.run(parameters),
    *iterate(parameters) {
      for (const values of statement.iterate(parameters) as IterableIterator<unknown[]>) yield rowOf(values)
    },
  }
}
