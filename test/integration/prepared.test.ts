import { sql } from 'kysely'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { openDatabase } from '../../src/storage/database.js'
import { prepareQuery } from '../../src/storage/prepared.js'
import { createTestDatabase, describeEachDatabase, pooled, type TestDatabase } from '../support/databases.js'

// A prepared query is built once per shape with slots for its arguments, so a builder that looks
// at argument values would build every later call's SQL from the first call's. What can be caught
// (a slot made a string or a number, or spread) fails loudly instead.

describeEachDatabase('prepareQuery', (dialect) => {
  /** Each query's name: one per dialect, as each is prepared once per dialect here. */
  const named = (query: string) => `test_${dialect}.${query}`
  let testDatabase: TestDatabase
  beforeAll(async () => {
    testDatabase = await createTestDatabase(dialect)
    await testDatabase.database.db
      .insertInto('organizations')
      .values(['o1', 'o2'].map((id) => ({ id, name: `name of ${id}`, created: 1, updated: 1 })))
      .execute()
  })
  afterAll(async () => {
    await testDatabase.drop()
  })

  test('a builder that reads arguments by name runs with each call’s values', async () => {
    const { db } = testDatabase.database
    const query = prepareQuery(named('names'), (db, args: { id: string }) =>
      db.selectFrom('organizations').select('name').where('id', '=', args.id),
    )
    expect(await query.run(db, { id: 'o1' })).toEqual([{ name: 'name of o1' }])
    expect(await query.run(db, { id: 'o2' })).toEqual([{ name: 'name of o2' }])
  })

  test('a builder that makes a string of an argument fails while building', async () => {
    const query = prepareQuery(named('template'), (db, args: { id: string }) =>
      db.selectFrom('organizations').select('id').where('name', '=', `name of ${args.id}`),
    )
    await expect(query.run(testDatabase.database.db, { id: 'o1' })).rejects.toThrow(
      "a prepared query's builder used the value of argument id",
    )
  })

  test('a builder that spreads its arguments fails while building', async () => {
    const query = prepareQuery(named('spread'), (db, args: { id: string; name: string }) =>
      db.insertInto('organizations').values({ ...args, created: 1, updated: 1 }),
    )
    await expect(query.run(testDatabase.database.db, { id: 'o3', name: 'o3' })).rejects.toThrow(
      'spread or listed its arguments',
    )
  })

  test('a query prepared for one dialect refuses to run on the other', async () => {
    const other = dialect === 'sqlite' ? 'postgres' : 'sqlite'
    const query = prepareQuery(
      named('otherDialect'),
      (db, args: { id: string }) => db.selectFrom('organizations').select('id').where('id', '=', args.id),
      { dialect: other },
    )
    await expect(query.run(testDatabase.database.db, { id: 'o1' })).rejects.toThrow(`for ${other} only`)
  })

  // A named statement is known to one server connection only, which a pooler in transaction mode
  // does not keep: PG_NAMED_STATEMENTS=false sends them unnamed (postgres-pool.ts).
  if (dialect === 'postgres')
    test.each([true, false])('named statements %s: what PostgreSQL keeps for the connection', async (on) => {
      // Through the run's pgbouncer the connection's statements are a server connection's, not ours.
      if (on && pooled) return
      const query = prepareQuery(named(`kept_${on}`), (db, args: { id: string }) =>
        db.selectFrom('organizations').select('name').where('id', '=', args.id),
      )
      // One connection, so that the statement and the look at it share it.
      const handle = openDatabase({
        dataDir: testDatabase.dataDir,
        databaseURL: testDatabase.databaseURL,
        postgres: { poolMax: 1, workerPoolMax: 1, namedStatements: on },
      })
      try {
        expect(await query.run(handle.db, { id: 'o1' })).toEqual([{ name: 'name of o1' }])
        const kept = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(handle.db)
        expect(kept.rows.map((row) => row.name)).toEqual(
          on ? [expect.stringMatching(/^parley_[0-9a-f]{20}$/)] : [],
        )
      } finally {
        await handle.close()
      }
    })
})
