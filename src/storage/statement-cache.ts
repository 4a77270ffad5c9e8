import type SQLite from 'better-sqlite3'
import type { SqliteDatabase, SqliteStatement } from 'kysely'
import { LRUCache } from 'lru-cache'
import { literalOf } from './row-literals.js'
import { type RoomReadsChange, roomReadsChange, type WriteMarks } from './write-marks.js'

const CACHE_SIZE = 500

/**
 * Kysely's SQLite driver prepares every query afresh, which costs about as much as running it.
 * This keeps the most recently used prepared statements by SQL text (least recently used out).
 * Every statement Kysely runs comes through here: those that may change a room read move `marks`.
 */
export function withStatementCache(sqlite: SQLite.Database, marks: WriteMarks): SqliteDatabase {
  // LRUCache keeps its order in arrays: a Map reordered by delete and set on every statement (six
  // per message sent) rebuilt its table in the old generation again and again (measured).
  const statements = new LRUCache<string, SqliteStatement>({ max: CACHE_SIZE })
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      const cached = statements.get(sql)
      if (cached) return cached
      const prepared = sqlite.prepare(sql)
      let statement = withRowsBuiltHere(prepared)
      const change = prepared.readonly ? 'none' : roomReadsChange(sql)
      if (change !== 'none') statement = marking(statement, marks, change)
      statements.set(sql, statement)
      return statement
    },
  }
}

/** The statement, moving `marks` before each run. */
function marking(
  statement: SqliteStatement,
  marks: WriteMarks,
  change: Exclude<RoomReadsChange, 'none'>,
): SqliteStatement {
  return {
    reader: statement.reader,
    all: (parameters) => {
      marks.moved(change)
      return statement.all(parameters)
    },
    run: (parameters) => {
      marks.moved(change)
      return statement.run(parameters)
    },
    iterate: (parameters) => {
      marks.moved(change)
      return statement.iterate(parameters)
    },
  }
}

/**
 * A statement whose rows are made into objects here, from better-sqlite3's arrays of values:
 * better-sqlite3 sets each column on each row through V8's C++ API (Node-API in version 13), which
 * took 16 of the 37 µs a room read (two rows of 29 columns) cost; a loop in JavaScript took about 2, an object literal
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
