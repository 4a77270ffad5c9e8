import { expect, test } from 'vitest'
import { afterCommit, Dispatcher, inTransaction } from '../../src/domain/happenings/dispatcher.js'
import { describeEachDatabase, insertOrganization, useTestDatabase } from '../support/databases.js'

// The dispatcher (src/domain/happenings/): a happening reported in a transaction runs its transaction
// listeners on that transaction and its commit listeners only once it committed; one told after a
// commit runs its listeners at once, in order; and nothing is reported before the listeners are given.

const user = { userID: '1', xcUserID: 'u-1', fullName: 'Una' }

describeEachDatabase('the dispatcher', (dialect) => {
  const testDatabase = useTestDatabase(dialect)
  /** A turn of the event loop: commit listeners due by then have run. */
  const turn = () => new Promise((resolve) => setImmediate(resolve))

  test('refuses a happening before its listeners are given, and takes them once', async () => {
    const dispatcher = new Dispatcher(testDatabase().database)
    await expect(dispatcher.tell('session.revoked', { sessionID: 's' })).rejects.toThrow(
      /before the listeners/,
    )
    dispatcher.listen([])
    expect(() => dispatcher.listen([])).toThrow(/once/)
    await expect(dispatcher.tell('session.revoked', { sessionID: 's' })).resolves.toBeUndefined()
  })

  test('transaction listeners write with the change; commit listeners run after it, in order', async () => {
    const { database } = testDatabase()
    const ran: string[] = []
    const dispatcher = new Dispatcher(database)
    dispatcher.listen([
      inTransaction('user.created', async ({ organizationID }, trx) => {
        ran.push('in the transaction')
        await insertOrganization(trx, organizationID)
      }),
      afterCommit('user.created', () => {
        ran.push('after the commit, first')
      }),
      afterCommit('user.created', () => {
        ran.push('after the commit, second')
      }),
    ])
    await database.transaction(async (trx) => {
      await dispatcher.emit(trx, 'user.created', { organizationID: 'dispatched-committed', user })
      expect(ran).toEqual(['in the transaction'])
    })
    await turn()
    expect(ran).toEqual(['in the transaction', 'after the commit, first', 'after the commit, second'])
    const row = await database.db
      .selectFrom('organizations')
      .select('id')
      .where('id', '=', 'dispatched-committed')
      .executeTakeFirst()
    expect(row).toEqual({ id: 'dispatched-committed' })
  })

  test('a change that rolls back writes nothing of its listeners and runs no commit listener', async () => {
    const { database } = testDatabase()
    const ran: string[] = []
    const dispatcher = new Dispatcher(database)
    dispatcher.listen([
      inTransaction('user.created', async ({ organizationID }, trx) => {
        await insertOrganization(trx, organizationID)
      }),
      afterCommit('user.created', () => {
        ran.push('after the commit')
      }),
    ])
    const failing = database.transaction(async (trx) => {
      await dispatcher.emit(trx, 'user.created', { organizationID: 'dispatched-rolled-back', user })
      throw new Error('the change fails after reporting')
    })
    await expect(failing).rejects.toThrow('the change fails after reporting')
    await turn()
    expect(ran).toEqual([])
    const row = await database.db
      .selectFrom('organizations')
      .select('id')
      .where('id', '=', 'dispatched-rolled-back')
      .executeTakeFirst()
    expect(row).toBeUndefined()
  })

  test('a happening told after a commit runs its listeners at once, the first before tell returns', async () => {
    const dispatcher = new Dispatcher(testDatabase().database)
    const heard: string[] = []
    dispatcher.listen([
      afterCommit('session.revoked', ({ sessionID }) => {
        heard.push(`first ${sessionID}`)
      }),
      afterCommit('session.revoked', async ({ sessionID }) => {
        heard.push(`second ${sessionID}`)
      }),
    ])
    const told = dispatcher.tell('session.revoked', { sessionID: 's-1' })
    expect(heard).toEqual(['first s-1'])
    await told
    expect(heard).toEqual(['first s-1', 'second s-1'])
  })
})
