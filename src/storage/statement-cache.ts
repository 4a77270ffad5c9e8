import type SQLite from 'better-sqlite3'
import type { SqliteDatabase } from 'kysely'

const CACHE_SIZE = 500

/**
 * Kysely's SQLite driver prepares every query afresh, which costs about as much as running it.
 * This keeps the most recently used prepared statements by SQL text (least recently used out).
 */
export function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>()
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = statements.get(sql)
      if (statement) {
        statements.delete(sql)
      } else {
        statement = sqlite.prepare(sql)
        if (statements.size >= CACHE_SIZE) statements.delete(statements.keys().next().value as string)
      }
      statements.set(sql, statement)
      return statement
    },
  }
}
