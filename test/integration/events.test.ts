import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { DISABLE_AFTER_MS } from '../../src/domain/events/endpoint-target.js'
import { EVENT_TYPES } from '../../src/domain/events/event-types.js'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { type BotRequest, startBot } from '../support/bot-server.js'
import { openCase } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'

const V = '/api/visitor/v1/client'
const ADMIN = '/admin/event_endpoint'

// Events to the customer's backend (docs/reference/events.md): recorded with each change,
// sent by the one delivery engine, signed, retried, ordered per endpoint; a dead endpoint disabled.
describeEachDatabase('events to the customer backend', (dialect) => {
  // Disabled after 2 h of failing here (24 h by default), and no jitter: retries fall on the schedule.
  const server = useServer(
    dialect,
    {},
    { delivery: { jitter: () => 0, endpointDisableAfterMs: 2 * 3_600_000 } },
  )
  let backend: Awaited<ReturnType<typeof startBot>>
  let answer: (request: BotRequest) => number = () => 200
  let count = 0

  beforeAll(async () => {
    backend = await startBot((request) => answer(request))
  })
  afterAll(async () => {
    await backend.close()
  })

  const drain = () => server().app.delivery.drain()
  /** An organization, its admin, and an endpoint (created over the admin API) for `eventTypes`. */
  async function setup(eventTypes: readonly string[] = EVENT_TYPES, url = `${backend.origin}/events`) {
    const org = await createOrganization(server(), `Events ${++count}`)
    const admin = await signInAgent(server(), org.organizationID, `admin-${count}@example.com`, {
      role: 'admin',
    })
    const created = await admin.call(`${ADMIN}/create`, { url, eventTypes, description: 'backend' })
    expect(created.status).toBe(200)
    return { org, admin, endpoint: created.json.data as { endpointID: string; secretKey: string } }
  }
  const received = (since: number, endpointPath = '/events') =>
    backend.requests.slice(since).filter((r) => r.url === endpointPath)

  test('each change is an event: signed, in order, with the documented payloads', async () => {
    answer = () => 200
    const before = backend.requests.length
    const { org, admin, endpoint } = await setup()
    expect(endpoint.secretKey).toMatch(/^whsec_/)
    const alice = await org.signIn('alice')
    const bob = await org.signIn('bob')
    const sent = await alice.call('/v1/chat/message/send', {
      localID: 'hi',
      type: 1001,
      body: 'Hi Bob',
      recipientUserID: bob.userID,
    })
    const message = sent.json.data.message
    await bob.call('/v1/chat/message/feedback/read', { messageIDs: [message.messageID] })
    const agent = await signInAgent(server(), org.organizationID, `agent-${count}@example.com`)
    const opened = await openCase(alice, 'Where is my parcel?')
    expect((await agent.call('/case/take', { id: opened.caseID })).status).toBe(200)
    expect((await agent.call('/case/close', { id: opened.caseID })).status).toBe(200)
    expect(
      (await alice.call(`${V}/case/rate`, { id: opened.caseID, rating: 5, note: 'Thanks' })).status,
    ).toBe(200)
    await drain()

    const requests = received(before)
    const bodies = requests.map(
      (r) => r.json as { type: string; organizationID: string; data: Record<string, unknown> },
    )
    expect(bodies.map((b) => b.type)).toEqual([
      'user.created',
      'user.created',
      'message.new',
      'message.read',
      'case.created',
      'message.new',
      'case.assigned',
      'case.closed',
      'case.rated',
    ])
    expect(bodies.every((b) => b.organizationID === org.organizationID)).toBe(true)
    expect(bodies[0]?.data).toEqual({
      user: { userID: alice.userID, xcUserID: 'alice', fullName: 'User alice' },
    })
    expect(bodies[2]?.data).toEqual({
      message: {
        messageID: message.messageID,
        roomID: message.roomID,
        senderID: alice.userID,
        type: 1001,
        body: 'Hi Bob',
        data: {},
        created: message.created,
      },
      recipients: [{ userID: bob.userID, xcUserID: 'bob', online: false, muted: false }],
    })
    expect(bodies[3]?.data).toEqual({
      roomID: message.roomID,
      userID: bob.userID,
      xcUserID: 'bob',
      upTo: message.created,
    })
    expect(bodies[4]?.data).toMatchObject({ case: { caseID: opened.caseID, status: 'queued' }, by: 'user' })
    expect(bodies[6]?.data).toMatchObject({ case: { caseID: opened.caseID, status: 'assigned' } })
    // System messages (an agent joined, the case was closed) are no message.new: nobody wrote them.
    expect(bodies[7]?.data).toMatchObject({ case: { status: 'closed' }, by: 'agent' })
    expect(bodies[8]?.data).toMatchObject({ rating: { rating: 5, note: 'Thanks' } })
    // Signed with the endpoint's secret; the webhook-id is the delivery's.
    const webhook = new Webhook(endpoint.secretKey)
    for (const request of requests) {
      const headers = request.headers as Record<string, string>
      expect(webhook.verify(request.body, headers)).toEqual(request.json)
      expect(headers['x-secret-key']).toBeUndefined()
    }
    const listed = await admin.call(`${ADMIN}/deliveries`, { endpointID: endpoint.endpointID })
    expect(listed.json.data.deliveries).toHaveLength(9)
    expect(listed.json.data.deliveries[0]).toMatchObject({
      eventType: 'case.rated',
      status: 'sent',
      attempts: 1,
    })
    // Delivered once: nothing more goes out.
    await drain()
    expect(received(before)).toHaveLength(9)
  })

  test('only the subscribed types; retried in order with the same webhook-id; sent again on request', async () => {
    const before = backend.requests.length
    const { org, admin, endpoint } = await setup(['user.created'])
    let failures = 2
    answer = (request) => (request.url === '/events' && failures-- > 0 ? 503 : 200)
    await org.signIn('carol')
    await org.signIn('dave')
    await drain()
    expect(received(before)).toHaveLength(1) // carol's, refused
    server().clock.advance(1000)
    await drain()
    server().clock.advance(2000)
    await drain()
    const requests = received(before)
    expect(
      requests.map((r) => (r.json as { data: { user: { xcUserID: string } } }).data.user.xcUserID),
    ).toEqual(['carol', 'carol', 'carol', 'dave'])
    expect(new Set(requests.slice(0, 3).map((r) => r.headers['webhook-id'])).size).toBe(1)
    const listed = (await admin.call(`${ADMIN}/deliveries`, { endpointID: endpoint.endpointID })).json.data
      .deliveries
    expect(listed[1]).toMatchObject({ status: 'sent', attempts: 3, lastError: 'HTTP 503' })

    const again = await admin.call(`${ADMIN}/redeliver`, {
      endpointID: endpoint.endpointID,
      deliveryID: listed[1].deliveryID,
    })
    expect(again.status).toBe(200)
    await drain()
    expect(received(before).at(-1)?.headers['webhook-id']).toBe(listed[1].deliveryID)
    const [audited] = await server().app.services.audit.list(operator, org.organizationID, 1)
    expect(audited).toMatchObject({
      action: 'event_endpoint.redeliver',
      detail: { deliveryID: listed[1].deliveryID },
    })
    const pendingAgain = await admin.call(`${ADMIN}/redeliver`, {
      endpointID: endpoint.endpointID,
      deliveryID: 'nope',
    })
    expect(pendingAgain.json.error).toMatchObject({ code: '40401' })
  })

  test('message.read comes when the read mark moves, not for a receipt of what was read already', async () => {
    answer = () => 200
    const before = backend.requests.length
    const { org } = await setup(['message.read'])
    const fay = await org.signIn('fay')
    const gus = await org.signIn('gus')
    const send = (localID: string) =>
      fay.call('/v1/chat/message/send', { localID, type: 1001, body: localID, recipientUserID: gus.userID })
    const first = (await send('one')).json.data.message
    const second = (await send('two')).json.data.message
    const read = (messageID: string) =>
      gus.call('/v1/chat/message/feedback/read', { messageIDs: [messageID] })
    await read(second.messageID)
    await read(second.messageID) // again: nothing new
    await read(first.messageID) // an earlier one: the mark does not move back
    await drain()
    const events = received(before).map((r) => r.json as { type: string; data: { upTo?: number } })
    expect(events.map((e) => e.type)).toEqual(['message.read'])
  })

  test('deleting a user through the server API tells the backend who it was: user.deleted', async () => {
    answer = () => 200
    const before = backend.requests.length
    const { org } = await setup(['user.deleted'])
    const erin = await org.signIn('erin')
    const deleted = await server().post(
      '/v1/server/user/delete',
      { userID: erin.userID },
      { 'server-key': org.serverKey },
    )
    expect(deleted.status).toBe(200)
    await drain()
    const [event] = received(before)
    expect(event?.json).toMatchObject({
      type: 'user.deleted',
      data: { user: { userID: erin.userID, xcUserID: 'erin', fullName: expect.any(String) } },
    })
    expect(received(before)).toHaveLength(1)
  })

  test("an endpoint's events go in chains, in order; a failure mid-chain holds back the rest", async () => {
    const before = backend.requests.length
    const { org } = await setup(['user.created'], `${backend.origin}/chain`)
    let seen = 0
    answer = (request) => (request.url === '/chain' && ++seen === 10 ? 503 : 200)
    const names = Array.from({ length: 30 }, (_, n) => `chained-${n}`)
    for (const name of names) await org.signIn(name)
    await drain()
    const userOf = (r: BotRequest) => (r.json as { data: { user: { xcUserID: string } } }).data.user.xcUserID
    // Nine taken, the tenth refused: nothing after it went out.
    expect(received(before, '/chain').map(userOf)).toEqual(names.slice(0, 10))
    server().clock.advance(1000)
    await drain()
    expect(received(before, '/chain').map(userOf)).toEqual([...names.slice(0, 10), ...names.slice(9)])
  })

  test('bad input is refused with the documented errors; agents may not manage endpoints', async () => {
    const { org, admin } = await setup(['user.created'])
    const unknown = await admin.call(`${ADMIN}/create`, { url: backend.url, eventTypes: ['message.sent'] })
    expect(unknown.json).toMatchObject({ status: 400, error: { code: '40002', field: 'eventTypes' } })
    const none = await admin.call(`${ADMIN}/create`, { url: backend.url, eventTypes: [] })
    expect(none.json).toMatchObject({ status: 400, error: { field: 'eventTypes' } })
    const bad = await admin.call(`${ADMIN}/create`, { url: 'ftp://x', eventTypes: ['user.created'] })
    expect(bad.json).toMatchObject({ status: 400, error: { field: 'url' } })
    const local = await admin.call(`${ADMIN}/create`, {
      url: 'http://10.1.2.3/hook',
      eventTypes: ['user.created'],
    })
    expect(local.json.error.message).toMatch(/private or local address/)
    const agent = await signInAgent(server(), org.organizationID, `plain-${count}@example.com`)
    expect((await agent.call(`${ADMIN}/list`)).status).toBe(403)
    const other = await setup(['user.created'])
    const foreign = await admin.call(`${ADMIN}/get`, { endpointID: other.endpoint.endpointID })
    expect(foreign.status).toBe(404)
  })

  test('an endpoint failing for the whole window is disabled, its admins told; enabling it resumes', async () => {
    const before = backend.requests.length
    const { org, admin, endpoint } = await setup(['user.created'], `${backend.origin}/dead`)
    answer = (request) => (request.url === '/dead' ? 500 : 200)
    await org.signIn('erin')
    await org.signIn('frank')
    await drain()
    // Retries at 1 s, 2 s, 4 s … capped at 10 min: two hours of them.
    for (let waited = 0; waited <= 2 * 3_600_000; waited += 600_000) {
      server().clock.advance(600_000)
      await drain()
    }
    const listed = (await admin.call(`${ADMIN}/list`)).json.data.endpoints
    expect(listed[0]).toMatchObject({
      active: false,
      disabledReason: expect.stringMatching(/^failed every attempt for 2/),
    })
    expect(listed[0].disabledAt).toBeGreaterThan(0)
    const deliveries = (await admin.call(`${ADMIN}/deliveries`, { endpointID: endpoint.endpointID })).json
      .data.deliveries
    expect(deliveries.map((d: { status: string }) => d.status)).toEqual(['abandoned', 'abandoned'])
    const audit = await server().app.services.audit.list(operator, org.organizationID, 10)
    expect(audit.find((entry) => entry.action === 'event_endpoint.disable')).toMatchObject({
      actor: 'system',
    })
    // Stopped: nothing more is sent or recorded.
    const attempts = received(before, '/dead').length
    await org.signIn('gina')
    server().clock.advance(600_000)
    await drain()
    expect(received(before, '/dead')).toHaveLength(attempts)
    // Paused by an admin: what waits is abandoned, with why.
    await admin.call(`${ADMIN}/update`, { endpointID: endpoint.endpointID, active: true })
    answer = () => 503
    await org.signIn('ivan')
    await drain()
    await admin.call(`${ADMIN}/update`, { endpointID: endpoint.endpointID, active: false })
    const paused = (await admin.call(`${ADMIN}/deliveries`, { endpointID: endpoint.endpointID })).json.data
      .deliveries[0]
    expect(paused).toMatchObject({ status: 'abandoned', lastError: 'the endpoint was paused' })
    // Enabled again (it answers now): new events go out.
    answer = () => 200
    const enabled = await admin.call(`${ADMIN}/update`, { endpointID: endpoint.endpointID, active: true })
    expect(enabled.json.data).toMatchObject({ active: true, disabledAt: null, disabledReason: '' })
    await org.signIn('hank')
    await drain()
    expect(received(before, '/dead').at(-1)?.json).toMatchObject({ data: { user: { xcUserID: 'hank' } } })
    expect(DISABLE_AFTER_MS).toBe(24 * 3_600_000)
  })

  test('a chatbot that opted in hears that the visitor closed its case, signed like its messages', async () => {
    answer = () => 200
    const org = await createOrganization(server(), `Bot events ${++count}`)
    const chatbot = await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Bot',
      url: `${backend.origin}/bot`,
    })
    const updated = await server().app.services.chatbots.update(operator, chatbot.chatbotID, {
      caseEvents: true,
    })
    expect(updated.caseEvents).toBe(true)
    const before = backend.requests.length
    const visitor = await org.signIn('ivy')
    const opened = await openCase(visitor, 'hello bot')
    await drain()
    await visitor.call(`${V}/case/close`, { id: opened.caseID })
    await drain()
    const requests = received(before, '/bot')
    expect(requests).toHaveLength(2) // the message, then the event
    const event = requests[1] as BotRequest
    expect(event.json).toMatchObject({
      type: 'case.closed',
      data: { case: { caseID: opened.caseID }, by: 'user' },
    })
    expect(event.headers['x-secret-key']).toBe(chatbot.secretKey)
    // (The clock is hours ahead after the test above: the signature is checked for its timestamp.)
    const { 'webhook-id': id, 'webhook-timestamp': at } = event.headers as Record<string, string>
    const signature = new Webhook(chatbot.secretKey).sign(id ?? '', new Date(Number(at) * 1000), event.body)
    expect(event.headers['webhook-signature']).toBe(signature)
  })

  test('/metrics counts attempts per endpoint and outcome', async () => {
    const { org, endpoint } = await setup(['user.created'], `${backend.origin}/metered`)
    answer = () => 200
    await org.signIn('jack')
    await drain()
    const metrics = await fetch(`${server().url}/metrics`).then((r) => r.text())
    expect(metrics).toContain(
      `parley_event_deliveries_total{endpoint="${endpoint.endpointID}",outcome="sent"} 1`,
    )
  })
})
