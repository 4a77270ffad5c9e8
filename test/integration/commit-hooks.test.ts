import type { Kysely } from 'kysely'
import { expect, test } from 'vitest'
import type { Schema } from '../../src/storage/schema.js'
import { describeEachDatabase, insertOrganization, useTestDatabase } from '../support/databases.js'

// Database.afterCommit: what waits for a transaction's commit (the delivery worker's wake) runs
// once it has committed, never when it rolled back, and at once for statements outside one.

describeEachDatabase('After commit', (dialect) => {
  const testDatabase = useTestDatabase(dialect)

  const stored = async (id: string) =>
    (await testDatabase().database.db.selectFrom('organizations').select('id').where('id', '=', id).execute())
      .length === 1

  /** A turn of the event loop: hooks due by then have run. */
  const turn = () => new Promise((resolve) => setImmediate(resolve))

  test('a hook runs after the commit, when another connection sees the row', async () => {
    const { database } = testDatabase()
    let seen: Promise<boolean> | undefined
    let ranInside = false
    await database.transaction(async (trx) => {
      await insertOrganization(trx, 'hook-committed')
      database.afterCommit(trx, () => {
        seen = stored('hook-committed')
      })
      await turnWithin(trx)
      ranInside = seen !== undefined
    })
    await turn()
    expect(ranInside).toBe(false)
    expect(await seen).toBe(true)
  })

  test('a rolled-back transaction runs none of its hooks; the others in its batch run theirs', async () => {
    const { database } = testDatabase()
    const ran: string[] = []
    const failing = database.transaction(async (trx) => {
      await insertOrganization(trx, 'hook-rolled-back')
      database.afterCommit(trx, () => ran.push('rolled back'))
      throw new Error('no')
    })
    const passing = database.transaction(async (trx) => {
      await insertOrganization(trx, 'hook-beside')
      database.afterCommit(trx, () => ran.push('committed'))
    })
    await expect(failing).rejects.toThrow('no')
    await passing
    await turn()
    expect(ran).toEqual(['committed'])
    expect(await stored('hook-rolled-back')).toBe(false)
  })

  test('outside a transaction, a hook runs at once', async () => {
    const { database } = testDatabase()
    let ran = false
    database.afterCommit(database.db, () => {
      ran = true
    })
    await turn()
    expect(ran).toBe(true)
  })
})

/** A query of the work's own: a hook added before it still waits for the commit. */
const turnWithin = (trx: Kysely<Schema>) => trx.selectFrom('organizations').select('id').limit(1).execute()
