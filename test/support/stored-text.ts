import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'kysely'
import type { TestDatabase } from './databases.js'

/** One stored text value and where it is. */
export interface StoredText {
  table: string
  column: string
  value: string
}

// Column types whose values are text to a reader: declared text (or nothing, on SQLite, where any
// value may go), JSON, and PostgreSQL's search vectors (their words).
const SQLITE_TEXT = /^$|TEXT|CHAR|CLOB|JSON/i
const POSTGRES_TEXT = ['text', 'character varying', 'character', 'json', 'jsonb', 'tsvector']

/**
 * Every text and JSON column of every table of the test's database, read from its schema
 * (sqlite_master and pragma table_info; information_schema.columns of the test's schema), with
 * each non-empty value: a column added later is read without anyone listing it.
 */
export async function storedTexts({ database, dialect }: TestDatabase): Promise<StoredText[]> {
  const { db } = database
  const columns: { table: string; column: string }[] = []
  if (dialect === 'sqlite') {
    const tables = await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(
      db,
    )
    for (const { name } of tables.rows) {
      const info = await sql<{
        name: string
        type: string
      }>`select name, type from pragma_table_info(${name})`.execute(db)
      for (const column of info.rows)
        if (SQLITE_TEXT.test(column.type)) columns.push({ table: name, column: column.name })
    }
  } else {
    const info = await sql<{ table_name: string; column_name: string; data_type: string }>`
      select c.table_name, c.column_name, c.data_type from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'`.execute(db)
    for (const column of info.rows)
      if (POSTGRES_TEXT.includes(column.data_type))
        columns.push({ table: column.table_name, column: column.column_name })
  }
  const found: StoredText[] = []
  for (const { table, column } of columns) {
    const rows = await sql<{
      value: string | null
    }>`select cast(${sql.ref(column)} as text) as value from ${sql.table(table)}`.execute(db)
    for (const { value } of rows.rows) if (value) found.push({ table, column, value })
  }
  return found
}

/** Where each of `strings` is stored (`table.column: string`); case-insensitive. */
export function whereStored(texts: readonly StoredText[], strings: readonly string[]): string[] {
  return texts.flatMap(({ table, column, value }) =>
    strings
      .filter((s) => value.toLowerCase().includes(s.toLowerCase()))
      .map((s) => `${table}.${column}: ${s}`),
  )
}

/** Every file under `dir` (the file store), read whole, as `path: string` for each string it holds. */
export function filesHolding(dir: string, strings: readonly string[]): string[] {
  let entries: string[]
  try {
    entries = readdirSync(dir)
  } catch {
    return []
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) return filesHolding(path, strings)
    const text = readFileSync(path).toString('latin1')
    return strings.filter((s) => text.includes(s)).map((s) => `${path}: ${s}`)
  })
}
