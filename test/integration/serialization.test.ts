import fc from 'fast-check'
import Fastify from 'fastify'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { caseShape } from '../../src/contract/cases.js'
import { messageShape } from '../../src/contract/chat.js'
import { auditEntryShape } from '../../src/contract/organization.js'
import { shapeOf } from '../../src/contract/shape.js'
import { toCase } from '../../src/domain/cases/case.js'
import { success, successEnvelope } from '../../src/http/envelope.js'
import { useResponseSchemas } from '../../src/http/serialization.js'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { openCase } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'

// Responses are written by the serialisers Fastify compiles from their schemas: for any value of a
// schema's type they must write exactly what JSON.stringify wrote before (any text, nulls, records
// of any JSON), and leave out what the schema does not name.

/** Writes `data` through a route whose 200 answer is `schema`, as Parley's routes are written. */
async function writerOf(schema: z.ZodType) {
  const app = Fastify()
  useResponseSchemas(app)
  let data: unknown
  app.get('/', { schema: { response: { 200: schema } } }, async () => data)
  await app.ready()
  return async (value: unknown) => {
    data = value
    return (await app.inject('/')).body
  }
}

/** Strings of any UTF-16 code units, lone surrogates included, and the ones JSON must escape. */
const anyString = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({
    unit: fc.constantFrom('\u0000', '\u001f', '"', '\\', '\ud800', '\udfff', '\u2028', 'é', '😀'),
  }),
  fc.string({ unit: 'binary', minLength: 42, maxLength: 6000 }),
)
const integer = fc.maxSafeInteger()
const record = fc.dictionary(anyString, fc.jsonValue())
const roomSummary = fc.record({ roomID: anyString, name: anyString, type: integer, imageURL: anyString })
const user = fc.record({
  userID: anyString,
  xcUserID: anyString,
  fullname: anyString,
  email: anyString,
  phone: anyString,
  username: anyString,
  imageURL: fc.record({ thumbnail: anyString, fullsize: anyString }),
  userRole: fc.record({ code: anyString }),
  bio: anyString,
  created: integer,
  updated: integer,
})
const message = fc.record({
  messageID: anyString,
  localID: anyString,
  roomID: anyString,
  room: roomSummary,
  type: integer,
  body: anyString,
  data: record,
  quote: fc.record({ title: anyString, content: anyString, imageURL: anyString }),
  replyTo: fc.option(anyString, { nil: null }),
  user,
  created: integer,
  updated: integer,
  isDeleted: fc.boolean(),
  isDelivered: fc.boolean(),
  isRead: fc.boolean(),
  edited: integer,
  reactions: fc.array(fc.record({ emoji: anyString, count: integer, userIDs: fc.array(anyString) })),
  threadID: fc.option(anyString, { nil: null }),
  replyCount: integer,
  isPinned: fc.boolean(),
})

describe('responses written through their schemas', () => {
  test('a message, or none, is written as JSON.stringify writes it, whatever its text and data', async () => {
    const write = await writerOf(
      successEnvelope(z.object({ message: messageShape, last: messageShape.nullable() })),
    )
    await fc.assert(
      fc.asyncProperty(message, fc.option(message, { nil: null }), async (one, last) => {
        const envelope = success({ message: one, last })
        expect(await write(envelope)).toBe(JSON.stringify(envelope))
      }),
      { numRuns: 300 },
    )
  })

  test('strings that are not text are escaped as JSON.stringify escapes them', async () => {
    const write = await writerOf(successEnvelope(auditEntryShape))
    for (const text of [
      'nul\u0000byte',
      'x\ud800',
      '\udc00x',
      'a\udc00\ud800b',
      '\u2028\u2029',
      'x'.repeat(5001),
    ]) {
      const entry = {
        auditID: text,
        agentAccountID: '',
        actor: 'cli:root',
        action: text,
        detail: { [text]: [text, { [text]: null }] },
        created: 1,
      }
      expect(await write(success(entry))).toBe(JSON.stringify(success(entry)))
    }
  })

  test('a field the schema does not name is left out; nullable fields keep their null', async () => {
    const write = await writerOf(successEnvelope(z.object({ case: caseShape })))
    const open = {
      caseID: 'FBED34A1EF',
      organizationID: '1',
      userID: '2',
      topicID: 3,
      status: 'queued',
      chatbotID: '',
      agentAccountID: '',
      roomID: '4',
      firstMessage: 'help',
      channel: 'app',
      created: 5,
      updated: 6,
      closedTime: null,
      closedBy: '',
      isClosed: false,
      rating: null,
    }
    expect(await write(success({ case: open }))).toBe(JSON.stringify(success({ case: open })))
    const leaky = { ...open, handoverSummary: 'for agents only', secret: 'x' }
    expect(await write(success({ case: leaky, extra: 1 }))).toBe(JSON.stringify(success({ case: open })))
  })

  test('an empty answer is `data: {}`', async () => {
    const write = await writerOf(successEnvelope(z.object({})))
    expect(await write(success({}))).toBe(
      '{"status":200,"error":{"code":"","message":"","field":""},"data":{}}',
    )
  })
})

test('a response schema must be exactly its domain type (the type-check fails otherwise)', () => {
  interface Sample {
    id: string
    closedTime: number | null
  }
  const exact = z.object({ id: z.string(), closedTime: z.number().nullable() })
  expect(shapeOf<Sample>()(exact)).toBe(exact)
  // @ts-expect-error a field of the type is missing
  shapeOf<Sample>()(z.object({ id: z.string() }))
  // @ts-expect-error a field the type does not have, even an optional one
  shapeOf<Sample>()(exact.extend({ secret: z.string().optional() }))
  // @ts-expect-error a field of another type
  shapeOf<Sample>()(z.object({ id: z.string(), closedTime: z.number() }))
})

describeEachDatabase('the routes', (dialect) => {
  const server = useServer(dialect)

  test('answer what JSON.stringify wrote of the same values read from the services', async () => {
    const { services } = server().app
    const org = await createOrganization(server())
    const ada = await org.signIn('ada')
    const bob = await org.signIn('bob')
    const identity = await services.sessions.authenticate(ada.accessToken)
    /** The route's answer, byte for byte, is the envelope of `data` as JSON.stringify writes it. */
    const answers = async (reply: Promise<{ text: string }>, data: unknown) =>
      expect((await reply).text).toBe(JSON.stringify(success(data)))

    const first = await ada.call('/v1/chat/message/send', {
      recipientUserID: bob.userID,
      localID: 'one',
      type: 1001,
      body: 'héllo 😀 "quoted" \\ \u2028 done',
      quote: { title: 'Re: ✓' },
    })
    const { roomID, messageID } = first.json.data.message
    await ada.call('/v1/chat/message/send', {
      roomID,
      localID: 'two',
      type: 1004,
      data: { url: 'https://example.com/ünï.pdf', fileName: 'ünï.pdf', nested: { list: [1, null, 'x'] } },
      replyTo: messageID,
    })
    await ada.call('/v1/client/room/create', { name: 'Nobody yet', type: 2, userIDs: [] })
    const max = Number.MAX_SAFE_INTEGER
    await answers(
      ada.call('/v1/chat/message/list_by_room/before', { roomID }),
      await services.history.listBefore(identity, roomID, max, 50),
    )
    await answers(
      ada.call('/v1/chat/message/room_list_and_unread'),
      await services.sync.roomListAndUnread(identity),
    )
    await answers(ada.call('/v1/client/room/get', { roomID }), {
      room: await services.rooms.get(identity, roomID),
    })
    await answers(ada.call('/v1/client/user/get_by_id', { id: bob.userID }), {
      user: await services.users.get(org.organizationID, bob.userID),
    })

    const V = '/api/visitor/v1/client'
    const { caseID } = await openCase(ada, 'Where is my parcel? 📦')
    const caseOf = async () =>
      toCase(
        await server()
          .testDatabase.database.db.selectFrom('cases')
          .selectAll()
          .where('id', '=', caseID)
          .executeTakeFirstOrThrow(),
      )
    await answers(ada.call(`${V}/case/get_by_id`, { id: caseID }), { case: await caseOf() })
    await ada.call(`${V}/case/close`, { id: caseID })
    await answers(ada.call(`${V}/case/get_by_id`, { id: caseID }), { case: await caseOf() })

    const admin = await signInAgent(server(), org.organizationID, 'admin@example.com', { role: 'admin' })
    const { chatbotID } = (
      await admin.call('/admin/chatbot/create', { name: 'Bot ✓', url: 'https://bot.example' })
    ).json.data
    const { serverKeyID } = (await admin.call('/admin/server_key/create')).json.data
    await admin.call('/admin/server_key/revoke', { serverKeyID })
    await admin.call('/admin/topic/create', { name: 'Billing' })
    const organizationID = org.organizationID
    await answers(admin.call('/admin/server_key/list'), {
      serverKeys: await services.serverKeys.list(operator, organizationID),
    })
    await answers(admin.call('/admin/chatbot/list'), {
      chatbots: await services.chatbots.list(operator, organizationID),
    })
    await answers(admin.call('/admin/topic/list'), { topics: await services.topics.list(organizationID) })
    await answers(admin.call('/admin/agent/list'), { agents: await services.agents.list(organizationID) })
    await answers(admin.call('/admin/audit_log/list', { limit: 100 }), {
      entries: await services.audit.list(operator, organizationID, 100),
    })
    // Reading the secret is audited: the details are compared before the audit log is read again.
    const details = (await admin.call('/admin/chatbot/get', { chatbotID })).text
    expect(details).toBe(JSON.stringify(success(await services.chatbots.show(chatbotID))))
  })
})
