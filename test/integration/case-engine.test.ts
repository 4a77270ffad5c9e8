import { afterAll, beforeAll, expect, test } from 'vitest'
import { type Repositories, repositories } from '../../src/domain/repositories.js'
import type { ClientIdentity } from '../../src/domain/sessions/access-tokens.js'
import { ManualClock } from '../../src/lib/clock.js'
import type { Frame } from '../../src/realtime/hub.js'
import { createServices, type Services } from '../../src/services.js'
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../support/databases.js'
import { testFileStorage } from '../support/files.js'
import { operator } from '../support/fixtures.js'

// The case engine without HTTP: services over a real database, with the queries handed in
// (domain/repositories.ts), so a test can make one of them fail in the middle of a change.

describeEachDatabase('the case engine', (dialect) => {
  let testDatabase: TestDatabase
  let services: Services
  let client: ClientIdentity
  const events: Frame[] = []
  /** The case/update frames the visitor was sent (watchers of the case get their own). */
  let visitorUpdates = 0
  /** System messages whose action is listed here fail to be stored (as a dropped connection would). */
  const failing = new Set<string>()

  const storeMessage: Repositories['messages']['storeMessage'] = (db, message) => {
    const action = (message.data as { action?: string }).action
    if (action && failing.has(action)) return Promise.reject(new Error(`storing ${action} failed`))
    return repositories.messages.storeMessage(db, message)
  }

  beforeAll(async () => {
    testDatabase = await createTestDatabase(dialect)
    // As buildApp does: the services issue IDs under a worker number leased from the database.
    await testDatabase.database.ids.lease()
    services = createServices({
      database: testDatabase.database,
      clock: new ManualClock(),
      masterKey: testDatabase.masterKey,
      publicURL: 'http://127.0.0.1',
      files: testFileStorage(testDatabase.dataDir),
      repositories: { ...repositories, messages: { ...repositories.messages, storeMessage } },
    })
    services.hub.subscribe((audience, event) => {
      events.push(event)
      if (event.eventName === 'case/update' && audience.userIDs?.includes(client.userID)) visitorUpdates++
    })
    const organization = await services.organizations.create(operator, 'Acme')
    const device = { ipAddress: '203.0.113.7', userAgent: 'test', platform: 'web', deviceID: 'd1' }
    const { userID } = await services.tickets.issue(
      organization.organizationID,
      { xcUserID: 'visitor-1', fullName: 'Ada' },
      device,
    )
    client = { userID, organizationID: organization.organizationID, sessionID: 'session-1' }
  })
  afterAll(async () => {
    await testDatabase.drop()
  })

  const roomMessages = async (roomID: string) => {
    const page = { roomID, direction: 'after' as const, bound: 0, limit: 100 }
    const rows = await repositories.messages.listPage(testDatabase.database.db, page)
    return rows.map((row) => row.body)
  }

  test('a change whose system message cannot be stored changes nothing and announces nothing', async () => {
    const opened = await services.cases.visitorCases.create(client, { message: 'Hello' })
    expect(opened.status).toBe('queued')
    const before = await roomMessages(opened.roomID)
    events.length = 0
    visitorUpdates = 0

    failing.add('case/close')
    await expect(services.cases.visitorCases.close(client, opened.caseID)).rejects.toThrow(
      'storing case/close failed',
    )
    // The status moved first inside the transaction: it must have rolled back with the message.
    expect((await services.cases.visitorCases.get(client, opened.caseID)).status).toBe('queued')
    expect(await roomMessages(opened.roomID)).toEqual(before)
    expect(events).toEqual([])

    failing.delete('case/close')
    const closed = await services.cases.visitorCases.close(client, opened.caseID)
    expect(closed.status).toBe('closed')
    expect(await roomMessages(opened.roomID)).toEqual([...before, 'The case was closed by the visitor'])
    expect(visitorUpdates).toBe(1)
  })

  test('changes of one case run one after another: of two closes at once, one closes, one finds it closed', async () => {
    const opened = await services.cases.visitorCases.create(client, { message: 'Again' })
    events.length = 0
    visitorUpdates = 0
    const [first, second] = await Promise.all([
      services.cases.visitorCases.close(client, opened.caseID),
      services.cases.visitorCases.close(client, opened.caseID),
    ])
    expect([first.status, second.status]).toEqual(['closed', 'closed'])
    const closings = (await roomMessages(opened.roomID)).filter((body) =>
      body.startsWith('The case was closed'),
    )
    expect(closings).toHaveLength(1)
    expect(visitorUpdates).toBe(1)
  })
})
