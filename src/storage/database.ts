import { createRequire } from 'node:module'
import { join } from 'node:path'
import {
  type DatabaseIntrospector,
  Kysely,
  Migrator,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  sql,
} from 'kysely'
import type pg from 'pg'
import type { Config } from '../config/config.js'
import { POSTGRES_DEFAULTS, type PostgresSettings } from '../config/postgres.js'
import { retryConflicts } from '../errors/faults.js'
import { startCheckpointer } from './checkpointer.js'
import { CommitHooks } from './commit-hooks.js'
import { DATABASE_FILE, privateDatabaseFiles, privateDataDir } from './data-dir.js'
import { GroupCommit } from './group-commit.js'
import { LeasedIDs } from './id-workers.js'
import { migrations } from './migrations/index.js'
import { forKysely } from './postgres-pool.js'
import type { Dialect, Schema } from './schema.js'
import { loadSqlite } from './sqlite-driver.js'
import { withStatementCache } from './statement-cache.js'
import { refusingInsideWork, unnested, WorkContext } from './transaction-guards.js'
import { WriteMarks } from './write-marks.js'

/** The one handle to storage: a Kysely instance over SQLite or PostgreSQL, and which it is. */
export interface Database {
  db: Kysely<Schema>
  dialect: Dialect
  /**
   * Runs `work` as one transaction. On SQLite, transactions arriving together share one commit
   * (see GroupCommit), so `work` must only touch the database, through its trx: a transaction
   * opened inside it, or a query on `db`, fails at once (see transaction-guards.ts).
   */
  transaction<T>(work: (trx: Kysely<Schema>) => Promise<T>): Promise<T>
  /**
   * Runs `work` that PostgreSQL does in one statement (atomic by itself) without BEGIN and COMMIT
   * around it: two round trips fewer. On SQLite, `work` may take several statements: it runs as a
   * transaction.
   */
  oneStatement<T>(work: (db: Kysely<Schema>) => Promise<T>): Promise<T>
  /**
   * Runs `hook` once the transaction `trx` belongs to has committed, never if it rolls back; at
   * once for `db` (or `oneStatement`'s handle on PostgreSQL), whose statements commit by themselves.
   */
  afterCommit(trx: Kysely<Schema>, hook: () => void): void
  /**
   * The IDs of new rows (`ids.next()`), like a sequence of the database's own: unique in it. Issued
   * only once `ids.lease()` has leased this handle a worker number (id-workers.ts).
   */
  ids: LeasedIDs
  /**
   * SQLite: moves whenever a room read may have changed (write-marks.ts), so that reads can be
   * cached in-process; undefined on PostgreSQL, where other instances write too.
   */
  writeMarks?: WriteMarks
  /**
   * The handle the delivery worker claims and settles through. On PostgreSQL it has connections of
   * its own (PG_WORKER_POOL_MAX), so that deliveries go out while requests queue for the pool: a
   * busy server's sends held it, and every claim and settlement waited its turn behind them. On
   * SQLite, this very handle (one connection, whose writes share commits anyway).
   */
  worker: Database
  /** Gives the worker number back, and closes the connections. */
  close(): Promise<void>
}

const INT8_OID = 20
const require = createRequire(import.meta.url)

/** Opens the database the configuration names; `postgres` defaults to POSTGRES_DEFAULTS. */
export function openDatabase(
  config: Pick<Config, 'databaseURL' | 'dataDir'> & { postgres?: PostgresSettings },
): Database {
  if (config.databaseURL) {
    const settings = config.postgres ?? POSTGRES_DEFAULTS
    // Loaded with DATABASE_URL only: an embedded database never needs the driver (start-up time).
    const pg: typeof import('pg').default = require('pg')
    // One set of hooks and one work context for both handles: a hook waits for its transaction's
    // commit, and inside any transaction's work a query beside its trx is refused, whichever
    // handle either belongs to.
    const shared = { hooks: new CommitHooks(), workContext: new WorkContext(), settings }
    const main = openPostgres(pg, config.databaseURL, settings.poolMax, shared)
    const ids = new LeasedIDs(main.db)
    const worker: Database = {
      ...openPostgres(pg, config.databaseURL, settings.workerPoolMax, shared),
      ids,
      get worker() {
        return worker
      },
      // Closed with the handle it belongs to.
      close: async () => {},
    }
    return {
      ...main,
      ids,
      worker,
      close: async () => {
        await closing(ids, main.db)
        await worker.db.destroy()
      },
    }
  }
  privateDataDir(config.dataDir)
  const SQLite = loadSqlite()
  const sqlite = new SQLite(join(config.dataDir, DATABASE_FILE))
  privateDatabaseFiles(config.dataDir)
  sqlite.pragma('journal_mode = WAL')
  // The CLI and the server share the file: wait for the other's write lock instead of failing.
  sqlite.pragma('busy_timeout = 5000')
  sqlite.pragma('synchronous = NORMAL')
  // A page cache of up to 64 MiB (SQLite's default is 2 MiB): lookups in a large database (a
  // million users) stay in memory. It grows only as pages are read.
  sqlite.pragma('cache_size = -65536')
  sqlite.pragma('foreign_keys = ON')
  const checkpointer = startCheckpointer(join(config.dataDir, DATABASE_FILE))
  sqlite.pragma(`wal_autocheckpoint = ${checkpointer.fallbackPages}`)
  const dataVersion = sqlite.prepare('pragma data_version').pluck()
  const writeMarks = new WriteMarks(() => dataVersion.get())
  const dialect = refusingInsideWork(
    new SqliteDialect({ database: withStatementCache(sqlite, writeMarks) }),
    () => groupCommit.insideWork(),
  )
  const db = new Kysely<Schema>({ dialect })
  const hooks = new CommitHooks()
  const groupCommit = new GroupCommit(db, dialect, hooks)
  const ids = new LeasedIDs(db)
  const handle: Database = {
    db,
    dialect: 'sqlite',
    writeMarks,
    afterCommit: (trx, hook) => hooks.add(trx, hook),
    transaction: unnested((work) => groupCommit.run(work), groupCommit.insideWork),
    oneStatement: unnested((work) => groupCommit.run(work), groupCommit.insideWork),
    ids,
    get worker() {
      return handle
    },
    close: async () => {
      await closing(ids, db)
      await checkpointer.stop()
    },
  }
  return handle
}

/**
 * A handle on PostgreSQL with a pool of `max` connections; its IDs, and how it closes, are the
 * caller's to add.
 */
function openPostgres(
  pg: typeof import('pg').default,
  connectionString: string,
  max: number,
  {
    hooks,
    workContext,
    settings,
  }: { hooks: CommitHooks; workContext: WorkContext; settings: PostgresSettings },
): Omit<Database, 'ids' | 'worker' | 'close'> {
  const pool = new pg.Pool({
    connectionString,
    max,
    // A database that is unreachable (not refusing: gone) answers 503 within seconds instead of
    // holding requests; TCP keep-alive finds connections a failover left dangling.
    connectionTimeoutMillis: 3000,
    keepAlive: true,
    // Times are epoch ms in bigint columns: well inside Number's exact range.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  })
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {})
  const dialect = refusingInsideWork(
    new PostgresDialect({ pool: forKysely(pool, settings) }),
    workContext.insideWork,
  )
  const db = new Kysely<Schema>({ dialect })
  const committing = async <T>(work: (trx: Kysely<Schema>) => Promise<T>) => {
    let handle: Kysely<Schema> | undefined
    const value = await db.transaction().execute((trx) => {
      handle = trx
      hooks.begin(trx)
      return work(trx)
    })
    if (handle) hooks.committed(handle)
    return value
  }
  return {
    db,
    dialect: 'postgres',
    afterCommit: (trx, hook) => hooks.add(trx, hook),
    // A transaction that lost a deadlock or a serialization check changed nothing: run it again.
    transaction: unnested(
      workContext.marking((work) => retryConflicts(() => committing(work))),
      workContext.insideWork,
    ),
    oneStatement: unnested((work) => work(db), workContext.insideWork),
  }
}

async function closing(ids: LeasedIDs, db: Kysely<Schema>): Promise<void> {
  await ids.release()
  await db.destroy()
}

/** Applies every pending migration; safe to call from several processes at once. */
export async function migrate(database: Database): Promise<void> {
  const schema = database.dialect === 'postgres' ? await currentSchema(database) : undefined
  const migrator = new Migrator({
    db: schema ? withIntrospectionOf(database.db, schema) : database.db,
    provider: { getMigrations: async () => migrations },
    // Kysely looks for its bookkeeping tables in every schema unless told which: a database that
    // holds another Parley (in another schema) would look migrated already.
    ...(schema ? { migrationTableSchema: schema } : {}),
  })
  const { error } = await migrator.migrateToLatest()
  if (error) throw error
}

/** Kysely's key for the migration lock, kept so that a Parley before this change still waits on it. */
const MIGRATION_LOCK = '3853314791062309107'

/**
 * Kysely's adapter, but its migration lock lives in the migrations' transaction: it opens that
 * transaction itself (Kysely's own BEGIN after it only draws a warning) and takes a transaction's
 * advisory lock, which the COMMIT or ROLLBACK gives back. Kysely's session lock, taken before the
 * transaction and given back after it, would stay behind a pooler in transaction mode on
 * whichever server connection took it, and every later start would wait on it.
 */
const transactionLocked = new (class extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`begin`.execute(db)
    await sql`select pg_advisory_xact_lock(${sql.raw(MIGRATION_LOCK)})`.execute(db)
  }

  override async releaseMigrationLock(): Promise<void> {}
})()

/**
 * `db` whose introspection (what Kysely's migrator reads to find its bookkeeping tables) sees our
 * schema only. Kysely's own reads the whole catalogue, with functions that fail when another
 * schema or table is dropped meanwhile (by another application, or another test): 3F000 or
 * 42P01 naming what is not ours. Its adapter takes the migration lock as transactionLocked does.
 */
function withIntrospectionOf(db: Kysely<Schema>, schema: string): Kysely<Schema> {
  const getTables = async () => {
    const { rows } = await sql<{ name: string }>`
      select tablename as name from pg_catalog.pg_tables where schemaname = ${schema}`.execute(db)
    return rows.map(({ name }) => ({ name, schema, isView: false, columns: [] }))
  }
  const introspection: DatabaseIntrospector = {
    getSchemas: async () => [{ name: schema }],
    getTables,
    getMetadata: async () => ({ tables: await getTables() }),
  }
  const executor = overriding(db.getExecutor(), { adapter: transactionLocked })
  return overriding(db, { introspection, getExecutor: () => executor })
}

/** `target` with some properties replaced. */
function overriding<T extends object>(target: T, overrides: Record<string, unknown>): T {
  return new Proxy(target, {
    get: (real, property) => {
      if (typeof property === 'string' && Object.hasOwn(overrides, property)) return overrides[property]
      const value = Reflect.get(real, property, real)
      // Kysely keeps its state in private fields: its methods must run on the real instance.
      return typeof value === 'function' ? value.bind(real) : value
    },
  })
}

async function currentSchema(database: Database): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)
  return rows[0]?.schema ?? 'public'
}
