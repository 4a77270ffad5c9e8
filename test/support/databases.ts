import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { describe } from 'vitest'
import { type Database, migrate, openDatabase } from '../../src/storage/database.js'

// Every storage test runs on SQLite, and again on PostgreSQL when DATABASE_URL is set. Each test
// database is fresh: a new directory for SQLite, a new schema (via search_path) for PostgreSQL.

export type DialectName = 'sqlite' | 'postgres'

export interface TestDatabase {
  dialect: DialectName
  /** The configuration another process (CLI, second instance) needs to reach the same data. */
  env: { DATA_DIR: string; DATABASE_URL?: string; PARLEY_MASTER_KEY?: string }
  dataDir: string
  databaseURL: string | undefined
  masterKey: Buffer
  database: Database
  /** Opens another handle on the same data (as another process would). */
  reopen(): Database
  drop(): Promise<void>
}

export const postgresURL = process.env.DATABASE_URL

export const dialects: DialectName[] = postgresURL ? ['sqlite', 'postgres'] : ['sqlite']

function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url)
  parsed.searchParams.set('options', `-c search_path=${schema}`)
  return parsed.toString()
}

export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-test-'))
  const masterKey = randomBytes(32)
  let databaseURL: string | undefined
  let dropSchema = async () => {}
  if (dialect === 'postgres') {
    const schema = `parley_test_${randomBytes(6).toString('hex')}`
    const admin = new pg.Client({ connectionString: postgresURL })
    await admin.connect()
    await admin.query(`create schema ${schema}`)
    await admin.end()
    databaseURL = withSearchPath(postgresURL as string, schema)
    dropSchema = async () => {
      const client = new pg.Client({ connectionString: postgresURL })
      await client.connect()
      await client.query(`drop schema ${schema} cascade`)
      await client.end()
    }
  }
  const reopen = () => openDatabase({ dataDir, databaseURL })
  const database = reopen()
  await migrate(database)
  return {
    dialect,
    env: {
      DATA_DIR: dataDir,
      ...(databaseURL ? { DATABASE_URL: databaseURL, PARLEY_MASTER_KEY: masterKey.toString('base64') } : {}),
    },
    dataDir,
    databaseURL,
    masterKey,
    database,
    reopen,
    drop: async () => {
      await database.close().catch(() => {})
      await dropSchema()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** `describe` once per available dialect; the body receives the dialect's name. */
export function describeEachDatabase(name: string, body: (dialect: DialectName) => void): void {
  for (const dialect of dialects) describe(`${name} [${dialect}]`, () => body(dialect))
}
