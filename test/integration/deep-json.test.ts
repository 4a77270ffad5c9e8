import { beforeAll, expect, test } from 'vitest'
import type { ChatbotDetails } from '../../src/domain/chatbots/chatbots.service.js'
import { MAX_DOCUMENT_DEPTH, MAX_JSON_DEPTH } from '../../src/lib/formats.js'
import { useServer } from '../support/app.js'
import { webhook } from '../support/cases.js'
import { bearer, createOrganization, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { connect } from '../support/sockets.js'

// JSON nested deeper than MAX_JSON_DEPTH in a parameter (docs/reference/limits.md) is refused as
// an invalid field (40002), and a document deeper than MAX_DOCUMENT_DEPTH before it is even parsed:
// 20,000 levels in a message's `data` were a 500 (a RangeError when the message was stored), and a
// frame's id that deep threw while the socket answered.

/** `{"a":{"a":…{}…}}`, `levels` objects deep: written as text (JSON.stringify of it would overflow). */
const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`
const documentTooDeep = {
  status: 400,
  error: {
    code: '40002',
    message: `JSON is nested too deeply (at most ${MAX_DOCUMENT_DEPTH} levels)`,
    field: '',
  },
  data: {},
}
const tooDeep = {
  status: 400,
  error: {
    code: '40002',
    message: `Param 'data' is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`,
    field: 'data',
  },
  data: {},
}
/** A message/send body whose `data` is `levels` objects deep, as JSON text. */
const sendBody = (fields: Record<string, unknown>, levels: number) =>
  `${JSON.stringify({ ...fields, type: 1001, body: 'deep' }).slice(0, -1)},"data":${nested(levels)}}`

describeEachDatabase('deeply nested JSON', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let alice: TestClient
  let bob: TestClient

  beforeAll(async () => {
    org = await createOrganization(server(), 'Deep')
    alice = await org.signIn('alice')
    bob = await org.signIn('bob')
  })

  const json = { 'content-type': 'application/json' }

  test('chat API: 20,000 levels in data is 40002; the limit itself is kept', async () => {
    const send = (localID: string, levels: number) =>
      server().post('/v1/chat/message/send', sendBody({ recipientUserID: bob.userID, localID }, levels), {
        ...json,
        ...bearer(alice.accessToken),
      })
    expect((await send('deep-1', 20_000)).json).toEqual(documentTooDeep)
    expect((await send('deep-2', MAX_JSON_DEPTH + 1)).json).toEqual(tooDeep)
    const kept = await send('deep-3', MAX_JSON_DEPTH)
    expect(kept.status).toBe(200)
    expect(JSON.stringify(kept.json.data.message.data)).toBe(nested(MAX_JSON_DEPTH))
  })

  test('server API message/send: 20,000 levels in data is 40002', async () => {
    const reply = await server().post(
      '/v1/server/message/send',
      sendBody({ userID: alice.userID, recipientUserID: bob.userID, localID: 'server-deep' }, 20_000),
      { ...json, 'server-key': org.serverKey },
    )
    expect(reply.json).toEqual(documentTooDeep)
    const deeperThanData = await server().post(
      '/v1/server/message/send',
      sendBody(
        { userID: alice.userID, recipientUserID: bob.userID, localID: 'server-deep' },
        MAX_JSON_DEPTH + 1,
      ),
      { ...json, 'server-key': org.serverKey },
    )
    expect(deeperThanData.json).toEqual(tooDeep)
  })

  test('WebSocket: deep data is 40002, a deep frame id is not echoed, and the socket goes on', async () => {
    const socket = await connect(server().url, alice.accessToken)
    try {
      const frame = (id: string, data: string) => `{"eventName":"chat/sendMessage","id":${id},"data":${data}}`
      const levels = MAX_JSON_DEPTH + 1
      socket.send(frame('1', sendBody({ recipientUserID: bob.userID, localID: 'ws-deep' }, levels)))
      socket.send(frame(nested(levels), '{}'))
      socket.send(frame('3', sendBody({ recipientUserID: bob.userID, localID: 'ws-deeper' }, 20_000)))
      socket.send({ eventName: 'chat/startTyping', id: 4, data: { roomID: '1' } })
      const errors = await socket.waitFor('error', 4)
      expect(errors[0]).toMatchObject({ id: 1, data: tooDeep })
      expect(errors[1].id).toBeUndefined()
      expect(errors[1].data.error.code).toBe('40002')
      expect(errors[2]).toEqual({ eventName: 'error', data: documentTooDeep })
      expect(errors[3].id).toBe(4)
    } finally {
      await socket.close()
    }
  })

  test('a document nested deeper than MAX_DOCUMENT_DEPTH is refused before it is parsed, on HTTP and sockets', async () => {
    // 1 MiB of `[`: parsing it took half a second of the only thread.
    const arrays = `{"roomID":"1","localID":"l","type":1001,"data":${'['.repeat(500_000)}${']'.repeat(500_000)}}`
    const reply = await server().post('/v1/chat/message/send', arrays, {
      ...json,
      ...bearer(alice.accessToken),
    })
    expect(reply.json).toEqual(documentTooDeep)
    const socket = await connect(server().url, alice.accessToken)
    try {
      socket.send(`{"eventName":"chat/sendMessage","id":1,"data":${arrays}}`)
      const [error] = await socket.waitFor('error')
      expect(error.data).toEqual(documentTooDeep)
    } finally {
      await socket.close()
    }
  })

  test('chatbot webhook: deep customData is "400 custom data is invalid", deeper still the document refusal', async () => {
    const bot: ChatbotDetails = await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Deep bot',
      url: 'http://127.0.0.1:9/bot',
    })
    // Checked before the case is looked up: any case will do.
    const body = (levels: number) =>
      `{"caseID":"1","eventType":"messages","messages":[{"type":"text","text":{"body":"hi"},"customData":${nested(levels)}}]}`
    const call = (levels: number) =>
      webhook(server(), bot)(body(levels), { secretKey: bot.secretKey }).then((r) => `${r.status} ${r.text}`)
    expect(await call(MAX_JSON_DEPTH + 1)).toBe('400 custom data is invalid')
    expect(await call(20_000)).toBe(`400 ${documentTooDeep.error.message}`)
  })
})
