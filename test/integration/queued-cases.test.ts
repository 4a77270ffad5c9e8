import { beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { openCase } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { connect } from '../support/sockets.js'

// Waiting cases nobody works (issue 14, items 2 and 3): admins hear of every queued case of their
// organization, and a queued case can be moved to another topic.

describeEachDatabase('queued cases', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let billing: number
  let general: number

  beforeAll(async () => {
    org = await createOrganization(server(), 'Waiting room')
    const topics = server().app.services.topics
    billing = (await topics.create(operator, org.organizationID, 'Billing')).topicID
    general = (await topics.list(org.organizationID)).find((t) => t.name === 'General')?.topicID as number
  })

  /** An agent (or admin), away: cases wait for them instead of going to them. */
  const agent = async (email: string, options: { role?: string; topics?: number[] } = {}) => {
    const signedIn = await signInAgent(server(), org.organizationID, email, options)
    await signedIn.call('/agent/set_status', { status: 'away' })
    return signedIn
  }

  test('an admin hears live of a case that waits in a topic they do not work, and after its transfer', async () => {
    const admin = await agent('boss@example.com', { role: 'admin', topics: [general] })
    const socket = await connect(server().url, admin.token)
    try {
      // Billing has no agent at all: only the admin can hear of its queue.
      const opened = await openCase(await org.signIn('billing-visitor'), 'refund?', billing)
      const heard = await socket.waitUntil(
        (f) => f.eventName === 'case/update' && f.data.caseID === opened.caseID,
      )
      expect(heard.data).toMatchObject({ status: 'queued', topicID: billing })
      const listed = await admin.call('/case/get_list', { status: 'queued' })
      expect(listed.json.data.cases.map((c: { caseID: string }) => c.caseID)).toContain(opened.caseID)
    } finally {
      await socket.close()
    }
  })

  test("admins and the topic's agents move a waiting case to another topic; it is recorded and assigned there", async () => {
    const admin = await agent('mover@example.com', { role: 'admin', topics: [general] })
    const generalAgent = await agent('general-agent@example.com', { topics: [general] })
    const billingAgent = await agent('billing-agent@example.com', { topics: [billing] })
    const visitor = await org.signIn('mover-visitor')
    const opened = await openCase(visitor, 'wrong topic', general)
    expect(opened.status).toBe('queued')

    // An agent of another topic may not move it; the topic's own agent may.
    const refused = await billingAgent.call('/case/transfer', { id: opened.caseID, topicID: billing })
    expect(refused.json.error).toMatchObject({ code: '40301' })
    const moved = await generalAgent.call('/case/transfer', { id: opened.caseID, topicID: billing })
    expect(moved.status).toBe(200)
    expect(moved.json.data.case).toMatchObject({ status: 'queued', topicID: billing, agentAccountID: '' })

    // A system message in the room records it; the visitor reads it with the chat API.
    const page = await visitor.call('/v1/chat/message/list_by_room/before', {
      roomID: opened.roomID,
      maxCreated: Number.MAX_SAFE_INTEGER,
      limit: 50,
    })
    const transfer = page.json.data.messages.find(
      (m: { type: number; data: { action?: string } }) =>
        m.type === 9001 && m.data.action === 'case/transfer',
    )
    expect(transfer?.body).toMatch(/Billing/)

    // Moving it again to where it is changes nothing.
    const again = await admin.call('/case/transfer', { id: opened.caseID, topicID: billing })
    expect(again.json.data.case).toMatchObject({ status: 'queued', topicID: billing })

    // Auto-assignment runs for the new topic: the admin moves it back, where an agent is online.
    await generalAgent.call('/agent/set_status', { status: 'online' })
    const back = await admin.call('/case/transfer', { id: opened.caseID, topicID: general })
    expect(back.json.data.case).toMatchObject({ status: 'assigned', agentAccountID: generalAgent.id })
  })

  test('a case that cannot move says why in plain words', async () => {
    const shop = await createOrganization(server(), 'Bot shop')
    await server().app.services.chatbots.create(operator, shop.organizationID, {
      name: 'Bot',
      url: 'http://127.0.0.1:9/b',
    })
    const admin = await signInAgent(server(), shop.organizationID, 'plain@example.com', { role: 'admin' })
    const visitor = await shop.signIn('plain-visitor')
    const opened = await openCase(visitor, 'hello bot')
    expect(opened.status).toBe('bot')
    const assign = await admin.call('/case/assign', { id: opened.caseID, agentAccountID: admin.id })
    expect(assign.json.error).toMatchObject({ code: '40901', message: 'case is with the chatbot' })

    await visitor.call('/api/visitor/v1/client/case/close', { id: opened.caseID })
    for (const [path, body] of [
      ['/case/transfer', { id: opened.caseID, topicID: opened.topicID }],
      ['/case/assign', { id: opened.caseID, agentAccountID: admin.id }],
      ['/case/take', { id: opened.caseID }],
    ] as const) {
      const reply = await admin.call(path, body)
      expect(reply.json.error, path).toMatchObject({ code: '40901', message: 'case is closed' })
    }
  })
})
