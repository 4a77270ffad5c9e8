import type { KyselyPlugin } from 'kysely'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { openCase } from '../support/cases.js'
import { createOrganization, signIn, type TestClient } from '../support/clients.js'
import { createTestDatabase, describeEachDatabase } from '../support/databases.js'
import { connect } from '../support/sockets.js'

// "Who am I talking to?" (docs/reference/agent-api.md): the agents' case lists carry each case's
// visitor and last message (in a constant number of queries per page, also live in `case/update`),
// and `visitor/get` gives a visitor's profile, last device and newest cases.

describeEachDatabase('who agents are talking to', (dialect) => {
  let server: TestServer
  /** Queries run on the server's database so far. */
  let queries = 0
  let org: Awaited<ReturnType<typeof createOrganization>>
  let other: Awaited<ReturnType<typeof createOrganization>>

  beforeAll(async () => {
    const testDatabase = await createTestDatabase(dialect)
    // The ID lease's renewal (every 10 s) and the scheduled messages' poll (every second) run on
    // timers of their own, whichever request they fall in: only the other queries count.
    const background = /"(id_worker_leases|scheduled_messages)"/
    const counting: KyselyPlugin = {
      transformQuery: (args) => {
        if (!background.test(JSON.stringify(args.node))) queries++
        return args.node
      },
      transformResult: async (args) => args.result,
    }
    const { database } = testDatabase
    server = await startServer({
      ...testDatabase,
      database: { ...database, db: database.db.withPlugin(counting) },
    })
    org = await createOrganization(server, 'Acme')
    other = await createOrganization(server, 'Other')
  })
  afterAll(async () => {
    if (server) await stopServer(server)
  })

  /** A visitor signed in with a full profile, from an iPhone. */
  const visitorOf = (serverKey: string, xcUserID: string, fullName: string): Promise<TestClient> =>
    signIn(server, serverKey, xcUserID, {
      fullName,
      email: `${xcUserID}@example.com`,
      phone: '+447700900123',
      userRoleCode: 'gold',
      userPlatform: 'ios',
      userDeviceID: `${xcUserID}-iphone`,
      userAgent: 'AcmeApp/3.1 (iPhone; iOS 18)',
    })
  const say = async (visitor: TestClient, caseID: string, body: string) => {
    const reply = await visitor.call('/api/visitor/v1/client/case/send_message', {
      id: caseID,
      localID: `${caseID}-${body}`,
      messageType: 'text',
      text: { body },
    })
    expect(reply.status).toBe(200)
  }
  const closeCase = (visitor: TestClient, caseID: string) =>
    visitor.call('/api/visitor/v1/client/case/close', { id: caseID })

  test("list rows carry the visitor's name and the last message: who said it, a line of it, when", async () => {
    const agent = await signInAgent(server, org.organizationID, 'rows@example.com')
    const vera = await visitorOf(org.serverKey, 'vera', 'Vera Visitor')
    const opened = await openCase(vera, 'My parcel\n  never   came')
    const row = async (status = 'queued') => {
      const { cases } = (await agent.call('/case/get_list', { status })).json.data
      return cases.find((c: { caseID: string }) => c.caseID === opened.caseID)
    }
    // A new case: its first message is the visitor's (one line of it).
    expect(await row()).toMatchObject({
      caseID: opened.caseID,
      userID: vera.userID,
      visitor: { userID: vera.userID, xcUserID: 'vera', fullName: 'Vera Visitor' },
      lastMessage: {
        type: 1001,
        preview: 'My parcel never came',
        senderID: vera.userID,
        senderRole: 'visitor',
        senderName: 'Vera Visitor',
      },
    })
    // Taken: Parley's note of it is not what the row shows (it reads alike in every row), the
    // visitor's message still is; then the agent's reply, under the agent's name.
    expect((await agent.call('/case/take', { id: opened.caseID })).status).toBe(200)
    expect((await row('assigned')).lastMessage).toMatchObject({
      preview: 'My parcel never came',
      senderRole: 'visitor',
    })
    server.clock.advance(1000)
    const long = `Sorry to hear that. ${'We are looking into it. '.repeat(10)}`
    const sent = await agent.call('/case/send_message', {
      id: opened.caseID,
      localID: 'r1',
      messageType: 'text',
      text: { body: long },
    })
    const last = (await row('assigned')).lastMessage
    expect(last).toMatchObject({
      messageID: sent.json.data.message.messageID,
      senderID: `agent:${agent.id}`,
      senderRole: 'agent',
      senderName: 'rows@example.com',
      created: sent.json.data.message.created,
    })
    expect([...last.preview]).toHaveLength(140)
    expect(last.preview.endsWith('…')).toBe(true)
    // A file without a caption shows as its name.
    await vera.call('/api/visitor/v1/client/case/send_message', {
      id: opened.caseID,
      localID: 'f1',
      messageType: 'file',
      file: { url: 'https://files.example.com/receipt.pdf', fileName: 'receipt.pdf' },
    })
    expect((await row('assigned')).lastMessage).toMatchObject({
      preview: 'receipt.pdf',
      senderRole: 'visitor',
    })
    // Closed, the row still shows the last thing said, not Parley's "closed by" note.
    server.clock.advance(1000)
    expect((await agent.call('/case/close', { id: opened.caseID })).status).toBe(200)
    expect((await row('closed')).lastMessage).toMatchObject({ preview: 'receipt.pdf', senderRole: 'visitor' })
  })

  test("case/update to agents carries the visitor and the last message; the visitor's stays a plain case", async () => {
    const agent = await signInAgent(server, org.organizationID, 'live@example.com')
    const wes = await visitorOf(org.serverKey, 'wes', 'Wes Visitor')
    const opened = await openCase(wes, 'Hello?')
    const [agentSocket, visitorSocket] = await Promise.all([
      connect(server.url, agent.token),
      connect(server.url, wes.accessToken),
    ])
    try {
      expect((await agent.call('/case/take', { id: opened.caseID })).status).toBe(200)
      const [toAgent] = await agentSocket.waitFor('case/update')
      expect(toAgent.data).toMatchObject({
        caseID: opened.caseID,
        status: 'assigned',
        visitor: { fullName: 'Wes Visitor' },
        lastMessage: { senderRole: 'visitor', preview: 'Hello?' },
      })
      const [toVisitor] = await visitorSocket.waitFor('case/update')
      expect(toVisitor.data).toMatchObject({ caseID: opened.caseID, status: 'assigned' })
      expect(toVisitor.data).not.toHaveProperty('visitor')
      expect(toVisitor.data).not.toHaveProperty('lastMessage')
    } finally {
      await Promise.all([agentSocket.close(), visitorSocket.close()])
    }
  })

  test("visitor/get: the profile of the ticket request, the last device, the newest cases; another organization's visitor does not exist", async () => {
    const agent = await signInAgent(server, org.organizationID, 'panel@example.com')
    const zoe = await visitorOf(org.serverKey, 'zoe', 'Zoe Visitor')
    const first = await openCase(zoe, 'First question')
    expect((await closeCase(zoe, first.caseID)).status).toBe(200)
    server.clock.advance(1000)
    const second = await openCase(zoe, 'Second question')
    const reply = await agent.call('/visitor/get', { userID: zoe.userID })
    expect(reply.json.status).toBe(200)
    expect(reply.json.data.visitor).toEqual({
      userID: zoe.userID,
      xcUserID: 'zoe',
      fullName: 'Zoe Visitor',
      email: 'zoe@example.com',
      phone: '+447700900123',
      username: '',
      userRoleCode: 'gold',
      created: expect.any(Number),
      updated: expect.any(Number),
      device: {
        platform: 'ios',
        deviceID: 'zoe-iphone',
        userAgent: 'AcmeApp/3.1 (iPhone; iOS 18)',
        signedIn: expect.any(Number),
      },
    })
    expect(
      reply.json.data.cases.map((c: { caseID: string; status: string; firstMessage: string }) => [
        c.caseID,
        c.status,
        c.firstMessage,
      ]),
    ).toEqual([
      [second.caseID, 'queued', 'Second question'],
      [first.caseID, 'closed', 'First question'],
    ])
    // An agent of another organization: no such visitor (and no such case).
    const outsider = await signInAgent(server, other.organizationID, 'outsider@example.com')
    expect((await outsider.call('/visitor/get', { userID: zoe.userID })).json.error).toMatchObject({
      code: '40401',
    })
    expect((await outsider.call('/case/get_by_id', { id: second.caseID })).json.error.code).toBe('40401')
    expect((await agent.call('/visitor/get', { userID: '' })).json.error.code).toBe('40002')
    expect((await agent.call('/visitor/get', { userID: '12345' })).json.error.code).toBe('40401')
  })

  test('a page of 50 cases takes as many queries as a page of 2 (no query per case)', async () => {
    const busy = await createOrganization(server, 'Busy')
    const admin = await signInAgent(server, busy.organizationID, 'busy-admin@example.com', {
      role: 'admin',
      maxConcurrentCases: 50,
    })
    // 25 visitors, two cases each (one closed), some answered by the admin.
    for (let i = 0; i < 25; i++) {
      const visitor = await visitorOf(busy.serverKey, `busy-${i}`, `Busy Visitor ${i}`)
      const earlier = await openCase(visitor, `earlier ${i}`)
      await closeCase(visitor, earlier.caseID)
      const open = await openCase(visitor, `now ${i}`)
      if (i % 3 === 0) {
        await admin.call('/case/take', { id: open.caseID })
        await admin.call('/case/send_message', {
          id: open.caseID,
          localID: `a${i}`,
          messageType: 'text',
          text: { body: `On it, ${i}` },
        })
      }
      if (i % 4 === 0) await say(visitor, open.caseID, 'still there?')
    }
    const counted = async (limit: number) => {
      const before = queries
      const reply = await admin.call('/case/get_list', { limit })
      expect(reply.status).toBe(200)
      return { count: queries - before, cases: reply.json.data.cases }
    }
    const small = await counted(2)
    const page = await counted(50)
    expect(page.cases).toHaveLength(50)
    // Every row has its visitor and last message, agents' replies under the admin's name.
    for (const row of page.cases) {
      expect(row.visitor.fullName).toMatch(/^Busy Visitor \d+$/)
      expect(row.lastMessage).not.toBeNull()
    }
    expect(
      page.cases.some(
        (row: { lastMessage: { senderName: string } }) =>
          row.lastMessage.senderName === 'busy-admin@example.com',
      ),
    ).toBe(true)
    // The cases, their last messages, their visitors; the agents' (and chatbots') names of those.
    expect(page.count).toBeLessThanOrEqual(small.count + 2)
    expect(page.count).toBeLessThanOrEqual(6)
  })
})
