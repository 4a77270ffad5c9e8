import { beforeAll, describe, expect, test } from 'vitest'
import type { ChatbotDetails } from '../../src/domain/chatbots/chatbots.service.js'
import { encodeServerKey } from '../../src/domain/server-keys/server-key-header.js'
import { send, useServer } from '../support/app.js'
import { openCase, roomMessages, webhook } from '../support/cases.js'
import { createOrganization, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator, validTicketRequest } from '../support/fixtures.js'
import { connect } from '../support/sockets.js'

// Strings that are not text: NUL (PostgreSQL refuses the byte, SQLite stores it) and lone UTF-16
// surrogates (PostgreSQL reads them as U+FFFD, so "x\ud800" and "x\ufffd" were one xcUserID). Every
// field of every endpoint refuses them at validation, so both databases give the same answer.

const NOT_TEXT = ['nul\u0000byte', '\u0000', 'x\ud800', 'x\udbff', '\udc00x', 'a\udc00\ud800b']
const TICKET = '/v1/server/auth_ticket/request'
const FIELDS = [
  ['userIPAddress', '101'],
  ['userAgent', '102'],
  ['userPlatform', '103'],
  ['userDeviceID', '104'],
  ['xcUserID', '105'],
  ['fullName', '106'],
  ['email', '107'],
  ['phone', '108'],
  ['username', '109'],
  ['photoThumbnailURL', '110'],
  ['photoFullsizeURL', '111'],
  ['userRoleCode', '112'],
] as const
const invalid = (name: string, field: string) => ({
  status: 400,
  error: { code: '40002', message: `Param '${name}' is invalid`, field },
  data: {},
})

describeEachDatabase('strings that are not text', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let client: TestClient
  let bot: ChatbotDetails

  beforeAll(async () => {
    org = await createOrganization(server())
    client = await org.signIn('alice')
    bot = await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Helper',
      url: 'http://127.0.0.1:9/bot',
    })
  })

  const ticket = (body: unknown) => server().post(TICKET, body, { 'server-key': org.serverKey })

  test('every ticket field with NUL or a lone surrogate is invalid, with its code', async () => {
    for (const [name, code] of FIELDS) {
      for (const value of NOT_TEXT) {
        const reply = await ticket(validTicketRequest({ [name]: value }))
        expect({ name, value, json: reply.json }).toEqual({ name, value, json: invalid(name, code) })
      }
    }
  })

  test('the first failing field in code order still wins', async () => {
    const { userIPAddress: _, ...noAddress } = validTicketRequest({ xcUserID: 'x\u0000' })
    expect((await ticket(noAddress)).json.error).toEqual({
      code: '40002',
      message: "Param 'userIPAddress' is required",
      field: '101',
    })
    // Unknown fields are ignored, whatever they hold.
    expect((await ticket(validTicketRequest({ extra: '\u0000\ud800', xcUserID: 'extra' }))).status).toBe(200)
  })

  test('xcUserIDs that differ only in lone surrogates never share a user: U+FFFD is its own user', async () => {
    const replacement = await ticket(validTicketRequest({ xcUserID: 'x\ufffd' }))
    expect(replacement.status).toBe(200)
    for (const xcUserID of ['x\ud800', 'x\udbff']) {
      expect((await ticket(validTicketRequest({ xcUserID }))).json).toEqual(invalid('xcUserID', '105'))
    }
    const again = await ticket(validTicketRequest({ xcUserID: 'x\ufffd' }))
    expect(again.json.data.userID).toBe(replacement.json.data.userID)
  })

  test('a Server-Key whose id holds NUL is a header error', async () => {
    const reply = await server().post(TICKET, validTicketRequest(), {
      'server-key': encodeServerKey('key\u0000id', 'secret'),
    })
    expect(reply.json.error).toEqual({
      code: '40001',
      message: 'Request headers are required (Server-Key)',
      field: '',
    })
  })

  test('other JSON endpoints: 400 40002 with the field name, also inside objects and lists', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['/v1/client/user/get_by_xcuserid', { xcUserID: 'a\u0000' }, 'xcUserID'],
      ['/v1/client/user/get_by_xcuserid', { xcUserID: 'a\ud800' }, 'xcUserID'],
      ['/v1/client/room/create', { name: 'Room\u0000', type: 2, userIDs: [] }, 'name'],
      ['/v1/client/room/create', { name: 'Room', type: 2, userIDs: ['1\u0000'] }, 'userIDs'],
      ['/v1/chat/message/send', { roomID: 'r', localID: 'l\udfff', type: 1001, body: 'hi' }, 'localID'],
      ['/v1/chat/message/send', { roomID: 'r', localID: 'l', type: 1001, body: 'hi\u0000' }, 'body'],
      [
        '/v1/chat/message/send',
        { roomID: 'r', localID: 'l', type: 1002, data: { url: 'https://a.example/\u0000' } },
        'data',
      ],
      [
        '/v1/chat/message/send',
        { roomID: 'r', localID: 'l', type: 1001, body: 'hi', data: { '\ud800': 1 } },
        'data',
      ],
      [
        '/v1/chat/message/send',
        { roomID: 'r', localID: 'l', type: 1001, body: 'hi', quote: { title: 'x\u0000' } },
        'quote',
      ],
    ]
    for (const [path, body, name] of cases) {
      const reply = await client.call(path, body)
      expect({ path, body, json: reply.json }).toEqual({ path, body, json: invalid(name, name) })
    }
  })

  test('WebSocket frames are validated the same way', async () => {
    const socket = await connect(server().url, client.accessToken)
    socket.send({
      eventName: 'chat/sendMessage',
      id: 1,
      data: { roomID: 'r', localID: 'a\u0000', type: 1001 },
    })
    socket.send({ eventName: 'chat/startTyping', id: 2, data: { roomID: 'r\ud800' } })
    const errors = await socket.waitFor('error', 2)
    expect(errors.map((frame) => [frame.id, frame.data])).toEqual([
      [1, invalid('localID', 'localID')],
      [2, invalid('roomID', 'roomID')],
    ])
    await socket.close()
  })

  describe('chatbot webhook', () => {
    const call = () => webhook(server(), bot)
    const key = () => ({ secretKey: bot.secretKey })
    const answer = async (reply: ReturnType<ReturnType<typeof webhook>>) => {
      const { status, text } = await reply
      return `${status} ${text}`
    }
    const message = (item: Record<string, unknown>) => ({
      caseID: '1',
      eventType: 'messages',
      messages: [item],
    })

    test('a field with NUL or a lone surrogate is "400 <field> is invalid"', async () => {
      const cases: [unknown, string][] = [
        [{ caseID: '12\u0000', eventType: 'close_case' }, '400 case id is invalid'],
        [{ caseID: '12\ud800', eventType: 'close_case' }, '400 case id is invalid'],
        [message({ type: 'text', text: { body: 'hi\u0000' } }), '400 text body is invalid'],
        [message({ type: 'text', text: { body: 'hi\udbff' } }), '400 text body is invalid'],
        [message({ type: 'image', image: { url: 'https://a.example/\u0000.png' } }), '400 url is invalid'],
        [
          message({ type: 'image', image: { url: 'https://a.example/i.png', caption: '\ud800' } }),
          '400 caption is invalid',
        ],
        [
          message({ type: 'document', document: { url: 'https://a.example/f', filename: 'f\u0000' } }),
          '400 filename is invalid',
        ],
        [message({ type: 'text', text: { body: 'hi' }, localID: 'l\u0000' }), '400 local id is invalid'],
        [
          message({ type: 'text', text: { body: 'hi' }, customData: { a: ['\u0000'] } }),
          '400 custom data is invalid',
        ],
        [
          { caseID: '1', eventType: 'handover_case', handoverCase: { agentEmail: 'a\u0000@x.example' } },
          '400 agent email is invalid',
        ],
        [
          { caseID: '1', eventType: 'handover_case', handoverCase: { chatbotHandoverSummary: '\udc00' } },
          '400 summary is invalid',
        ],
      ]
      for (const [body, expected] of cases) {
        expect({ body, answer: await answer(call()(body, key())) }).toEqual({ body, answer: expected })
      }
    })

    test('a path parameter with NUL names no chatbot: 401', async () => {
      const reply = await send(
        `${server().url}/api/visitor/v1/webhook/chatbot/custom/${bot.organizationID}/${bot.chatbotID}%00`,
        { method: 'POST', headers: { 'secret-key': bot.secretKey }, body: '{}' },
      )
      expect(`${reply.status} ${reply.text}`).toBe('401 secret key is invalid')
    })

    test('a document URL ending in a broken % escape is stored, named by its raw last segment', async () => {
      const visitor = await org.signIn('visitor')
      const { caseID, roomID } = await openCase(visitor)
      const event = {
        caseID,
        eventType: 'messages',
        messages: [{ type: 'document', document: { url: 'https://example.com/a%' } }],
      }
      expect(await answer(call()(event, key()))).toBe('200 ok')
      const stored = await roomMessages(server(), roomID)
      expect(JSON.parse(String(stored.at(-1)?.data))).toMatchObject({
        url: 'https://example.com/a%',
        fileName: 'a%',
      })
    })
  })
})
