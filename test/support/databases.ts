import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Kysely } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe } from 'vitest'
import { POSTGRES_DEFAULTS } from '../../src/config/postgres.js'
import { type Database, migrate, openDatabase } from '../../src/storage/database.js'
import type { Schema } from '../../src/storage/schema.js'

// Every storage test runs on SQLite, and again on PostgreSQL when DATABASE_URL is set. Each test
// database is fresh: a new directory for SQLite, a new schema (via search_path) for PostgreSQL.

export type DialectName = 'sqlite' | 'postgres'

export interface TestDatabase {
  dialect: DialectName
  /** The configuration another process (CLI, second instance) needs to reach the same data. */
  env: { DATA_DIR: string; DATABASE_URL?: string; PARLEY_MASTER_KEY?: string; PG_NAMED_STATEMENTS?: string }
  dataDir: string
  databaseURL: string | undefined
  masterKey: Buffer
  database: Database
  /** Opens another handle on the same data (as another process would). */
  reopen(): Database
  drop(): Promise<void>
}

export const postgresURL = process.env.DATABASE_URL

/**
 * The run goes through a pgbouncer in transaction mode (TEST_PGBOUNCER, started by the global
 * setup): DATABASE_URL is the pgbouncer's, and named statements are off, as an operator's would be.
 * pgbouncer passes no `options` (a schema's search_path) and keeps no session state, so each test
 * database is then a database of its own rather than a schema.
 */
export const pooled = Boolean(process.env.TEST_PGBOUNCER && postgresURL)

/** What a process needs to open a test database: PG_NAMED_STATEMENTS=false through a pooler. */
export const pooledEnv: Record<string, string> = pooled ? { PG_NAMED_STATEMENTS: 'false' } : {}

/** The PostgreSQL settings this run's handles open with (in the test process). */
export const testPostgres = { ...POSTGRES_DEFAULTS, namedStatements: !pooled }

export const dialects: DialectName[] = postgresURL ? ['sqlite', 'postgres'] : ['sqlite']

/**
 * Every schema and database a test run creates is named with the run's prefix, so the run's
 * teardown (global-setup.ts) drops whatever a failed or interrupted test left behind, and nothing
 * else in the database is touched.
 */
export const runPrefix = () => `parley_test_${process.env.PARLEY_TEST_RUN ?? 'solo'}_`

export function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url)
  parsed.searchParams.set('options', `-c search_path=${schema}`)
  return parsed.toString()
}

export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-test-'))
  const masterKey = randomBytes(32)
  const own =
    dialect === 'postgres'
      ? await (pooled ? createOwnPostgresDatabase() : createOwnPostgresSchema())
      : undefined
  const databaseURL = own?.url
  const reopen = () => openDatabase({ dataDir, databaseURL, postgres: testPostgres })
  const database = reopen()
  await migrate(database)
  return {
    dialect,
    env: {
      DATA_DIR: dataDir,
      ...(databaseURL
        ? { DATABASE_URL: databaseURL, PARLEY_MASTER_KEY: masterKey.toString('base64'), ...pooledEnv }
        : {}),
    },
    dataDir,
    databaseURL,
    masterKey,
    database,
    reopen,
    drop: async () => {
      await database.close().catch(() => {})
      await own?.drop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** A fresh test database for the tests of the calling `describe`, dropped after them. */
export function useTestDatabase(dialect: DialectName): () => TestDatabase {
  let testDatabase: TestDatabase | undefined
  beforeAll(async () => {
    testDatabase = await createTestDatabase(dialect)
  })
  afterAll(async () => {
    await testDatabase?.drop()
  })
  return () => testDatabase as TestDatabase
}

/** A bare organization row: something to write in storage tests. */
export const insertOrganization = (db: Kysely<Schema>, id: string) =>
  db.insertInto('organizations').values({ id, name: id, created: 1, updated: 1 }).execute()

/** `describe` once per available dialect; the body receives the dialect's name. */
export function describeEachDatabase(name: string, body: (dialect: DialectName) => void): void {
  for (const dialect of dialects) describe(`${name} [${dialect}]`, () => body(dialect))
}

/** A PostgreSQL schema of the caller's own in the shared database, reached through search_path. */
export async function createOwnPostgresSchema(): Promise<OwnPostgres> {
  const name = `${runPrefix()}${randomBytes(6).toString('hex')}`
  await asAdmin(`create schema ${name}`)
  const url = withSearchPath(postgresURL as string, name)
  return { url, name, drop: () => asAdmin(`drop schema if exists ${name} cascade`) }
}

/**
 * A PostgreSQL database of the caller's own (not a schema of the shared one), for fault tests
 * that terminate every connection to their database without touching anyone else's. Dropping a
 * database waits for a checkpoint (seconds when the machine is busy): a schema, where one will do,
 * is cheaper.
 */
export async function createOwnPostgresDatabase(): Promise<OwnPostgres> {
  const name = `${runPrefix()}db_${randomBytes(6).toString('hex')}`
  await asAdmin(`create database ${name}`)
  const url = new URL(postgresURL as string)
  url.pathname = `/${name}`
  return { url: url.toString(), name, drop: () => asAdmin(`drop database if exists ${name} with (force)`) }
}

export interface OwnPostgres {
  url: string
  name: string
  drop(): Promise<void>
}

/** Runs one statement on the shared database, on a connection of its own. */
export async function asAdmin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresURL })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/** Drops every schema, database and role whose name starts with `prefix` (a test run's leftovers). */
export async function dropLeftovers(prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresURL })
  await client.connect()
  try {
    const like = `${prefix.replaceAll('_', '\\_')}%`
    const schemas = await client.query<{ name: string }>(
      'select nspname as name from pg_namespace where nspname like $1',
      [like],
    )
    for (const { name } of schemas.rows) await client.query(`drop schema if exists "${name}" cascade`)
    const databases = await client.query<{ name: string }>(
      'select datname as name from pg_database where datname like $1',
      [like],
    )
    for (const { name } of databases.rows)
      await client.query(`drop database if exists "${name}" with (force)`)
    const roles = await client.query<{ name: string }>(
      'select rolname as name from pg_roles where rolname like $1',
      [like],
    )
    for (const { name } of roles.rows) await client.query(`drop role if exists "${name}"`)
  } finally {
    await client.end()
  }
}
