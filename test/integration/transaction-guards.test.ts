import { expect, test } from 'vitest'
import { WAITED_OUTSIDE, WORK_OVER } from '../../src/storage/group-commit.js'
import { NESTED_TRANSACTION, QUERY_BESIDE_TRX } from '../../src/storage/transaction-guards.js'
import { describeEachDatabase, insertOrganization, useTestDatabase } from '../support/databases.js'

// A transaction's work does its database work through its own trx and nothing else. Breaking the
// rule fails loudly and at once instead of waiting forever (SQLite: the group commit would wait
// for the work, which waits for the group commit) or quietly running apart (PostgreSQL: a second
// pooled connection, outside the transaction).

describeEachDatabase('Transaction guards', (dialect) => {
  const testDatabase = useTestDatabase(dialect)

  const stored = async (prefix: string) =>
    (
      await testDatabase()
        .database.db.selectFrom('organizations')
        .select('id')
        .where('id', 'like', `${prefix}%`)
        .orderBy('id')
        .execute()
    ).map((row) => row.id)

  test('a transaction opened inside another fails at once, and the outer one rolls back', async () => {
    const { database } = testDatabase()
    const outer = database.transaction(async (trx) => {
      await insertOrganization(trx, 'nest-outer')
      await database.transaction((inner) => insertOrganization(inner, 'nest-inner'))
    })
    await expect(outer).rejects.toThrow(NESTED_TRANSACTION)
    await database.transaction((trx) => insertOrganization(trx, 'nest-after'))
    expect(await stored('nest-')).toEqual(['nest-after'])
  })

  test("a query on database.db inside a transaction's work fails at once", async () => {
    const { database } = testDatabase()
    const outcome = database.transaction(async (trx) => {
      await insertOrganization(trx, 'beside-trx')
      await insertOrganization(database.db, 'beside-db')
    })
    await expect(outcome).rejects.toThrow(QUERY_BESIDE_TRX)
    expect(await stored('beside-')).toEqual([])
  })

  test("the delivery worker's handle and the requests' guard each other's transactions", async () => {
    const { database } = testDatabase()
    const { worker } = database
    const beside = worker.transaction(async (trx) => {
      await insertOrganization(trx, 'handles-worker')
      await insertOrganization(database.db, 'handles-db')
    })
    await expect(beside).rejects.toThrow(QUERY_BESIDE_TRX)
    const nested = database.transaction(async (trx) => {
      await insertOrganization(trx, 'handles-outer')
      await worker.transaction((inner) => insertOrganization(inner, 'handles-inner'))
    })
    await expect(nested).rejects.toThrow(NESTED_TRANSACTION)
    expect(await stored('handles-')).toEqual([])
  })

  test('a task the work left running may open its own transaction once the work is over', async () => {
    const { database } = testDatabase()
    let detached: Promise<unknown> = Promise.resolve()
    await database.transaction(async (trx) => {
      await insertOrganization(trx, 'left-1')
      detached = new Promise((resolve) => setImmediate(resolve)).then(() =>
        database.transaction((later) => insertOrganization(later, 'left-2')),
      )
    })
    await detached
    expect(await stored('left-')).toEqual(['left-1', 'left-2'])
  })

  // On PostgreSQL such work holds one connection of the pool and its row locks, nothing more
  // (the deadlock test in storage.test.ts waits on purpose inside its work).
  if (dialect === 'sqlite')
    test('work that waits on something else is rolled back at once; the rest of its batch commits', async () => {
      const { database } = testDatabase()
      let resume: () => void = () => {}
      const elsewhere = new Promise<void>((resolve) => {
        resume = resolve
      })
      let tellLate: (outcome: string) => void = () => {}
      const late = new Promise<string>((resolve) => {
        tellLate = resolve
      })
      const waiting = database.transaction(async (trx) => {
        await insertOrganization(trx, 'wait-0')
        await elsewhere
        await insertOrganization(trx, 'wait-late').then(
          () => tellLate('ran'),
          (error: Error) => tellLate(error.message),
        )
      })
      const others = ['wait-a', 'wait-b'].map((id) =>
        database.transaction((trx) => insertOrganization(trx, id)),
      )
      await expect(waiting).rejects.toThrow(WAITED_OUTSIDE)
      await Promise.all(others)
      // The work goes on where it waited; its trx refuses what it tries next.
      resume()
      expect(await late).toBe(WORK_OVER)
      expect(await stored('wait-')).toEqual(['wait-a', 'wait-b'])
    })
})
