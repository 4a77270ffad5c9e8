import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely'
import { type ListedQuery, preparedQueries, Slot } from '../src/storage/prepared.js'
import type { Dialect, Schema } from '../src/storage/schema.js'

// The SQL of every prepared query (storage/prepared.ts), per dialect: sql/<dialect>/<module>.sql.
// The files are checked in, so that a change to a query is reviewed as the SQL it makes.

const ROOT = fileURLToPath(new URL('..', import.meta.url))
export const SQL_DIR = join(ROOT, 'sql')
export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres']

const HEADER = '-- Written by `npm run sql` from the prepared queries of src/: do not edit.\n'

/** Kysely instances that compile queries and never connect. */
const compilers: Record<Dialect, Kysely<Schema>> = {
  sqlite: new Kysely<Schema>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  }),
  postgres: new Kysely<Schema>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  }),
}

/** The listing: each file's path under sql/ and its text. */
export async function sqlListing(): Promise<Map<string, string>> {
  await importPreparingModules()
  // Only the domain modules' queries (a test may have prepared its own in this process), by name,
  // whatever order the modules were imported in.
  const modules = new Set(readdirSync(join(ROOT, 'src', 'domain')))
  const queries = [...preparedQueries()]
    .filter((query) => modules.has(query.name.split('.')[0] as string))
    .sort((a, b) => a.name.localeCompare(b.name))
  const files = new Map<string, string>()
  for (const dialect of DIALECTS) {
    for (const query of queries) {
      if (query.dialect && query.dialect !== dialect) continue
      const path = `${dialect}/${query.name.split('.')[0]}.sql`
      files.set(path, (files.get(path) ?? HEADER) + listed(query, compilers[dialect]))
    }
  }
  return files
}

/** Imports every source file that prepares queries, so that each query is registered. */
async function importPreparingModules(): Promise<void> {
  const src = join(ROOT, 'src')
  for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' }).sort()) {
    const path = join(src, file)
    if (file.endsWith('.ts') && readFileSync(path, 'utf8').includes('prepareQuery(')) {
      await import(pathToFileURL(path).href)
    }
  }
}

/** Each shape of the query: its name, what fills its placeholders, and its SQL. */
const listed = (query: ListedQuery, db: Kysely<Schema>): string =>
  query.shapes
    .map((shape) => {
      const { sql, parameters } = query.compile(db, shape)
      const values = parameters.map((p) => (p instanceof Slot ? p.name : JSON.stringify(p)))
      return `\n-- ${query.name}${shape ? ` (${shape})` : ''}\n-- parameters: ${values.join(', ')}\n${lines(sql)}\n`
    })
    .join('')

/** Clauses that start a line, unless inside parentheses (other than a WITH query's). */
const CLAUSE =
  /^ (with|insert into|values|on conflict|set|select|from|inner join|left join|where|group by|order by|limit|returning|for update|for share)\b/

/**
 * The statement, one clause a line, so that a diff shows which clause changed. (SQL written by
 * hand, with lines of its own, is first made one line, as Kysely writes it.)
 */
function lines(written: string): string {
  const sql = oneLine(written)
  let text = ''
  let quote = ''
  /** The parentheses open here: true for a WITH query's, whose clauses get lines of their own. */
  const open: boolean[] = []
  const atTop = () => open.every(Boolean)
  const newline = () => `\n${'  '.repeat(open.length)}`
  for (let i = 0; i < sql.length; i++) {
    const c = sql.charAt(i)
    if (quote) {
      quote = c === quote ? '' : quote
    } else if (c === '"' || c === "'") {
      quote = c
    } else if (c === '(') {
      open.push(/ as (materialized )?$/.test(text))
      if (open.at(-1) && atTop()) {
        text += `(${newline()}`
        continue
      }
    } else if (c === ')') {
      if (open.pop() && atTop()) {
        text += `${newline()})`
        continue
      }
    } else if (c === ' ' && atTop() && CLAUSE.test(sql.slice(i))) {
      text += newline()
      continue
    }
    text += c
  }
  return text
}

/** Runs of white space outside quotes made one space, and none inside parentheses' edges. */
const oneLine = (sql: string): string =>
  sql
    .split(/('(?:[^']|'')*'|"[^"]*")/)
    .map((part, i) =>
      i % 2 === 1 ? part : part.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')'),
    )
    .join('')
    .trim()
