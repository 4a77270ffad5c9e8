import { type Kysely, sql } from 'kysely'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { isUniqueViolation } from '../../src/errors/faults.js'
import { migrate, openDatabase } from '../../src/storage/database.js'
import type { Schema } from '../../src/storage/schema.js'
import {
  createOwnPostgresDatabase,
  createOwnPostgresSchema,
  createTestDatabase,
  describeEachDatabase,
  type OwnPostgres,
  pooled,
  type TestDatabase,
  testPostgres,
  withSearchPath,
} from '../support/databases.js'

// Database.transaction: on SQLite concurrent transactions share one commit (group commit), each
// in its own savepoint; on PostgreSQL each is a transaction of its own. Either way, each one
// commits or rolls back alone.

/** Migrations run while another schema churns: with Kysely’s own look at the catalogue, 7 of 10 failed. */
const MIGRATIONS_AMID_CHURN = 10

describeEachDatabase('Database.transaction', (dialect) => {
  let testDatabase: TestDatabase
  beforeAll(async () => {
    testDatabase = await createTestDatabase(dialect)
  })
  afterAll(async () => {
    await testDatabase.drop()
  })

  const addOrganization = (id: string) =>
    testDatabase.database.transaction(async (trx) => {
      await trx.insertInto('organizations').values({ id, name: id, created: 1, updated: 1 }).execute()
      await trx.updateTable('organizations').set({ updated: 2 }).where('id', '=', id).execute()
      if (id.startsWith('fail')) throw new Error(`refused ${id}`)
      return id
    })

  const stored = async () =>
    (
      await testDatabase.database.db
        .selectFrom('organizations')
        .select(['id', 'updated'])
        .orderBy('id')
        .execute()
    ).map((row) => `${row.id}:${row.updated}`)

  test('concurrent transactions commit or roll back each on its own', async () => {
    const ids = ['a1', 'fail-b', 'c1', 'fail-d', 'e1']
    const outcomes = await Promise.allSettled(ids.map(addOrganization))
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
    ])
    expect(outcomes[1]).toMatchObject({ reason: new Error('refused fail-b') })
    expect(await stored()).toEqual(['a1:2', 'c1:2', 'e1:2'])
  })

  test('a constraint violation rejects only its own transaction', async () => {
    const outcomes = await Promise.allSettled([
      addOrganization('x1'),
      addOrganization('a1'),
      addOrganization('y1'),
    ])
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect(await stored()).toEqual(['a1:2', 'c1:2', 'e1:2', 'x1:2', 'y1:2'])
  })

  test('many concurrent transactions all land', async () => {
    const ids = Array.from({ length: 300 }, (_, i) => `bulk-${String(i).padStart(3, '0')}`)
    expect(await Promise.all(ids.map(addOrganization))).toEqual(ids)
    expect((await stored()).filter((row) => row.startsWith('bulk-'))).toHaveLength(300)
  })

  test("another process's commit during a batch does not fail the batch's writers", async () => {
    const other = testDatabase.reopen() // as the CLI would, in its own process
    if (dialect === 'sqlite') await sql`pragma busy_timeout = 100`.execute(other.db)
    try {
      const outcomes = await Promise.allSettled([
        testDatabase.database.transaction(
          async (trx) => (await trx.selectFrom('organizations').select('id').execute()).length,
        ),
        // In the middle of the batch, another process writes and commits (or, on SQLite, waits for
        // the batch's write lock and gives up: it fails alone).
        testDatabase.database.transaction(() =>
          other.db
            .insertInto('organizations')
            .values({ id: 'from-cli', name: 'cli', created: 1, updated: 1 })
            .execute(),
        ),
        addOrganization('after-1'),
        addOrganization('after-2'),
      ])
      expect(outcomes.slice(2).map((o) => o.status)).toEqual(['fulfilled', 'fulfilled'])
      expect(outcomes[1]?.status).toBe(dialect === 'sqlite' ? 'rejected' : 'fulfilled')
      expect(await stored()).toEqual(expect.arrayContaining(['after-1:2', 'after-2:2']))
    } finally {
      await other.close()
    }
  })
  test('a row refused by a unique index or a primary key is told apart by its code', async () => {
    const { db } = testDatabase.database
    /** 'stored', or whether the refusal was a unique violation. */
    const outcome = (write: Promise<unknown>) =>
      write.then(
        () => 'stored',
        (error: unknown) => isUniqueViolation(error),
      )
    const agent = {
      id: 'unique-1',
      organization_id: 'a1',
      email: 'unique@example.com',
      full_name: 'U',
      role: 'agent',
      password_hash: 'x',
      created: 1,
      updated: 1,
    }
    const insertAgent = (row: typeof agent, into: Kysely<Schema> = db) =>
      into.insertInto('agent_accounts').values(row).execute()
    expect(await outcome(insertAgent(agent))).toBe('stored')
    expect(await outcome(insertAgent({ ...agent, id: 'unique-2' }))).toBe(true) // the email's index
    expect(await outcome(insertAgent({ ...agent, email: 'other@example.com' }))).toBe(true) // the key
    // Inside a transaction (on SQLite: in a group commit's savepoint) too.
    expect(await outcome(testDatabase.database.transaction((trx) => insertAgent(agent, trx)))).toBe(true)
    // Other constraints are something else: here a foreign key.
    const orphan = { ...agent, id: 'unique-3', email: 'orphan@example.com', organization_id: 'none' }
    expect(await outcome(insertAgent(orphan))).toBe(false)
  })

  // SQLite has one writer and no deadlocks; PostgreSQL has both.
  if (dialect === 'postgres')
    test('a transaction that loses a deadlock is run again, and both land', async () => {
      await Promise.all([addOrganization('lock-a'), addOrganization('lock-b')])
      // Each transaction locks one row, waits until the other has locked its row, then wants the
      // other's: PostgreSQL kills one of them with 40P01.
      let runs = 0
      let arrived = 0
      let bothLocked: () => void = () => {}
      const meeting = new Promise<void>((resolve) => {
        bothLocked = resolve
      })
      const crosswise = (first: string, second: string) =>
        testDatabase.database.transaction(async (trx) => {
          runs++
          await trx
            .updateTable('organizations')
            .set({ name: `${first} first` })
            .where('id', '=', first)
            .execute()
          if (++arrived === 2) bothLocked()
          await meeting
          await trx
            .updateTable('organizations')
            .set({ name: `${second} second` })
            .where('id', '=', second)
            .execute()
          return first
        })
      expect(await Promise.all([crosswise('lock-a', 'lock-b'), crosswise('lock-b', 'lock-a')])).toEqual([
        'lock-a',
        'lock-b',
      ])
      expect(runs).toBe(3)
    })

  // The connection budget (docs/operations/postgresql-and-redis.md): each pool holds at most its
  // setting's connections, however many queries wait. (Through pgbouncer a backend is its server
  // connection's, not the pool's.)
  if (dialect === 'postgres' && !pooled)
    test('PG_POOL_MAX and PG_WORKER_POOL_MAX bound the connections each pool opens', async () => {
      const handle = openDatabase({
        dataDir: testDatabase.dataDir,
        databaseURL: testDatabase.databaseURL,
        postgres: { ...testPostgres, poolMax: 3, workerPoolMax: 2 },
      })
      try {
        const backends = async (db: Kysely<Schema>) => {
          const pids = await Promise.all(
            Array.from({ length: 12 }, async () => {
              const { rows } = await sql<{ pid: number }>`
                select pg_backend_pid() as pid, pg_sleep(0.02)`.execute(db)
              return rows[0]?.pid
            }),
          )
          return new Set(pids).size
        }
        expect(await backends(handle.db)).toBe(3)
        expect(await backends(handle.worker.db)).toBe(2)
      } finally {
        await handle.close()
      }
    })

  // A database where a Parley server already runs can host another in a schema of its own: the
  // test suite does exactly that with DATABASE_URL. (Not through pgbouncer, which passes no
  // search_path.)
  if (dialect === 'postgres' && !pooled)
    test('migrations go into the current schema although another Parley uses the database', async () => {
      const [one, another] = await Promise.all([createOwnPostgresSchema(), createOwnPostgresSchema()])
      const open = ({ url }: OwnPostgres) => openDatabase({ dataDir: testDatabase.dataDir, databaseURL: url })
      const [first, second] = [open(one), open(another)]
      try {
        await migrate(first)
        await migrate(second)
        const { rows } = await sql<{ schema: string }>`
          select table_schema as schema from information_schema.tables
          where table_name = 'messages' and table_schema in (${one.name}, ${another.name})`.execute(second.db)
        expect(rows.map((row) => row.schema).sort()).toEqual([one.name, another.name].sort())
      } finally {
        await Promise.all([first.close(), second.close()])
        await Promise.all([one.drop(), another.drop()])
      }
    })

  // Kysely's migrator reads the whole catalogue; other schemas coming and going meanwhile (other
  // test files, other applications in the database) must not fail a migration. In a database of
  // its own, so that the churn disturbs no other test; each Parley is dropped once migrated, so
  // that the database is small to drop.
  if (dialect === 'postgres' && !pooled)
    test('migrations succeed while other schemas are created and dropped', async () => {
      const own = await createOwnPostgresDatabase()
      const churner = openDatabase({ dataDir: testDatabase.dataDir, databaseURL: own.url })
      let stop = false
      const churn = (async () => {
        for (let i = 0; !stop; i++) {
          // Tables dropped one by one fail the look with 42P01, the schema with 3F000.
          const tables = Array.from({ length: 8 }, (_, t) => `churn_${i}.t${t}`)
          const creates = tables.map((table) => `create table ${table} (a serial, b text, c int);`)
          await sql.raw(`create schema churn_${i}; ${creates.join(' ')}`).execute(churner.db)
          for (const table of tables) await sql.raw(`drop table ${table}`).execute(churner.db)
          await sql.raw(`drop schema churn_${i} cascade`).execute(churner.db)
        }
      })()
      const failures: string[] = []
      try {
        for (let i = 0; i < MIGRATIONS_AMID_CHURN; i++) {
          await sql.raw(`create schema parley_${i}`).execute(churner.db)
          const database = openDatabase({
            dataDir: testDatabase.dataDir,
            databaseURL: withSearchPath(own.url, `parley_${i}`),
          })
          await migrate(database).catch((error: unknown) => failures.push(String(error)))
          await database.close()
          await sql.raw(`drop schema parley_${i} cascade`).execute(churner.db)
        }
      } finally {
        stop = true
        await churn
        await churner.close()
        await own.drop()
      }
      expect(failures).toEqual([])
    }, 90_000) // ten migrations one after another, and a database dropped: 22–44 s in CI
})
