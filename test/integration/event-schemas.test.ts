import { Ajv2020 } from 'ajv/dist/2020.js'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { EVENT_TYPES } from '../../src/domain/events/event-types.js'
import { signInAgent } from '../support/agents.js'
import { send, useServer } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import { openCase, webhook } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'

const V = '/api/visitor/v1/client'

// Each event type's body is in /docs (OpenAPI 3.1 `webhooks`, from the schemas the bodies are
// written through), and what a real server sends validates against it: every type, both databases.
describeEachDatabase('event payloads as /docs documents them', (dialect) => {
  const server = useServer(dialect)
  let backend: Awaited<ReturnType<typeof startBot>>
  beforeAll(async () => {
    backend = await startBot()
  })
  afterAll(async () => {
    await backend.close()
  })

  /** Each event type's documented body, as /docs/json has it. */
  async function documentedSchemas(): Promise<Record<string, object>> {
    const doc = (await send(`${server().url}/docs/json`, { method: 'GET' })).json
    return Object.fromEntries(
      Object.entries(doc.webhooks as Record<string, { post: { requestBody: { content: object } } }>).map(
        ([type, item]) => [
          type,
          (item.post.requestBody.content as Record<string, { schema: object }>)['application/json']
            ?.schema as object,
        ],
      ),
    )
  }

  test('/docs has a schema for every event type, and each emitted event validates against its own', async () => {
    const schemas = await documentedSchemas()
    expect(Object.keys(schemas).sort()).toEqual([...EVENT_TYPES].sort())
    const ajv = new Ajv2020({ strict: true, allErrors: true })
    const validators = Object.fromEntries(
      Object.entries(schemas).map(([type, schema]) => [type, ajv.compile(schema)]),
    )

    // Every type, from a real server: an endpoint taking them all, and the changes that make them.
    const org = await createOrganization(server(), 'Schemas')
    const admin = await signInAgent(server(), org.organizationID, 'schemas-admin@example.com', {
      role: 'admin',
    })
    const url = `${backend.origin}/events`
    expect((await admin.call('/admin/event_endpoint/create', { url, eventTypes: EVENT_TYPES })).status).toBe(
      200,
    )
    const before = backend.requests.length
    const alice = await org.signIn('alice')
    const bob = await org.signIn('bob')
    const sent = await alice.call('/v1/chat/message/send', {
      localID: 'hi',
      type: 1001,
      body: 'Hi Bob',
      recipientUserID: bob.userID,
    })
    await bob.call('/v1/chat/message/feedback/read', { messageIDs: [sent.json.data.message.messageID] })
    const edit = { messageID: sent.json.data.message.messageID, body: 'Hi Bob!' }
    expect((await alice.call('/v1/chat/message/edit', edit)).status).toBe(200) // message.updated
    const { messageID, roomID } = sent.json.data.message
    const reported = { messageID, roomID, category: 'spam', reason: 'unwanted' }
    expect((await bob.call('/v1/client/chat_report/submit_message', reported)).status).toBe(200)
    const agent = await signInAgent(server(), org.organizationID, 'schemas-agent@example.com')
    const queued = await openCase(alice, 'Where is my parcel?')
    expect((await agent.call('/case/take', { id: queued.caseID })).status).toBe(200) // case.assigned
    expect((await agent.call('/case/close', { id: queued.caseID })).status).toBe(200)
    expect((await alice.call(`${V}/case/rate`, { id: queued.caseID, rating: 4, note: 'ok' })).status).toBe(
      200,
    )
    // With a chatbot, a new case is the bot's: its handover is case.handed_over.
    const chatbot = await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Bot',
      url: `${backend.origin}/bot`,
    })
    const botCase = await openCase(bob, 'hello bot')
    const handover = { caseID: botCase.caseID, eventType: 'handover_case' }
    expect((await webhook(server(), chatbot)(handover, { secretKey: chatbot.secretKey })).text).toBe('ok')
    // Sent before the deletion: deliveries still pending that name alice would be dropped with her.
    await server().app.delivery.drain()
    const deleted = await server().post(
      '/v1/server/user/delete',
      { userID: alice.userID },
      { 'server-key': org.serverKey },
    )
    expect(deleted.status).toBe(200)
    await server().app.delivery.drain()

    const events = backend.requests
      .slice(before)
      .filter((r) => r.url === '/events')
      .map((r) => r.json as { type: string; data: Record<string, unknown> })
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(EVENT_TYPES))
    for (const event of events) {
      const validate = validators[event.type] as (typeof validators)[string]
      expect(validate(event), `${event.type}: ${JSON.stringify(validate.errors)}`).toBe(true)
      // Another type's schema refuses it (the `type` is a constant), as does a field taken away.
      const other = EVENT_TYPES.find((type) => type !== event.type) as string
      expect(validators[other]?.(event)).toBe(false)
      const [field] = Object.keys(event.data)
      expect(validate({ ...event, data: { ...event.data, [field as string]: undefined } })).toBe(false)
    }
  })
})
