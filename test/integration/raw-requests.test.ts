import { connect } from 'node:net'
import { beforeAll, describe, expect, test } from 'vitest'
import type { ChatbotDetails } from '../../src/domain/chatbots/chatbots.service.js'
import { useServer } from '../support/app.js'
import { createOrganization } from '../support/clients.js'
import { operator } from '../support/fixtures.js'

// Requests fetch would never send (or would normalise): written byte for byte on a socket. Every
// answer is Parley's: the envelope on the JSON APIs, plain text on the chatbot webhook, even when
// Node's HTTP parser or Fastify's router refuses the request before any route runs.

interface RawReply {
  status: number
  headers: Record<string, string>
  body: string
}

/** Sends `request` as is and reads the answer until the server closes the connection. */
function rawRequest(url: string, request: string): Promise<RawReply> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = connect(Number(port), hostname, () => socket.end(request))
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const [head = '', ...rest] = text.split('\r\n\r\n')
      const [statusLine = '', ...lines] = head.split('\r\n')
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      )
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') })
    })
  })
}

const TICKET = '/v1/server/auth_ticket/request'
const WEBHOOK = '/api/visitor/v1/webhook/chatbot/custom'
const envelope = (status: number, code: string, message: string, field = '') => ({
  status,
  error: { code, message, field },
  data: {},
})

describe('raw requests', () => {
  const server = useServer('sqlite')
  let bot: ChatbotDetails
  let serverKey: string

  beforeAll(async () => {
    const org = await createOrganization(server())
    serverKey = org.serverKey
    bot = await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Helper',
      url: 'http://127.0.0.1:9/bot',
    })
  })

  const post = (path: string, headers: string[], body = '') =>
    rawRequest(
      server().url,
      [`POST ${path} HTTP/1.1`, 'Host: localhost', 'Connection: close', ...headers, '', body].join('\r\n'),
    )
  const json = (reply: RawReply) => ({
    status: reply.status,
    type: reply.headers['content-type'],
    body: JSON.parse(reply.body),
  })
  const text = (reply: RawReply) => ({
    status: reply.status,
    type: reply.headers['content-type'],
    body: reply.body,
  })
  const plain = (status: number, body: string) => ({ status, type: 'text/plain; charset=utf-8', body })
  const inEnvelope = (status: number, code: string, message: string, field = '') => ({
    status,
    type: 'application/json; charset=utf-8',
    body: envelope(status, code, message, field),
  })

  test('an empty Content-Type with an empty body reads as {}', async () => {
    const reply = await post(TICKET, [`Server-Key: ${serverKey}`, 'Content-Type:', 'Content-Length: 0'])
    expect(json(reply)).toEqual(inEnvelope(400, '40002', "Param 'userIPAddress' is required", '101'))
    const webhook = await post(`${WEBHOOK}/${bot.organizationID}/${bot.chatbotID}`, [
      `Secret-Key: ${bot.secretKey}`,
      'Content-Type: ',
      'Content-Length: 0',
    ])
    expect(text(webhook)).toEqual(plain(400, 'case id is required'))
  })

  test('an empty Content-Type with a JSON body is 415 on JSON APIs; the webhook reads JSON anyway', async () => {
    const body = '{"caseID":"1"}'
    const headers = ['Content-Type:', `Content-Length: ${body.length}`]
    const reply = await post(TICKET, [`Server-Key: ${serverKey}`, ...headers], body)
    expect(json(reply)).toEqual(inEnvelope(415, '41500', 'Content-Type must be application/json'))
    const webhook = await post(
      `${WEBHOOK}/${bot.organizationID}/${bot.chatbotID}`,
      [`Secret-Key: ${bot.secretKey}`, ...headers],
      body,
    )
    expect(text(webhook)).toEqual(plain(400, 'event type is required'))
  })

  test('a webhook path parameter over 100 characters is checked like any other: 401', async () => {
    const long = '9'.repeat(300)
    for (const path of [`${WEBHOOK}/${long}/${bot.chatbotID}`, `${WEBHOOK}/${bot.organizationID}/${long}`]) {
      const reply = await post(path, ['Secret-Key: wrong', 'Content-Length: 2'], '{}')
      expect(text(reply)).toEqual(plain(401, 'secret key is invalid'))
    }
  })

  test('a path with a broken % escape: 401 on the webhook, the envelope elsewhere', async () => {
    const webhook = await post(`${WEBHOOK}/${bot.organizationID}/%zz`, [
      'Secret-Key: wrong',
      'Content-Length: 0',
    ])
    expect(text(webhook)).toEqual(plain(401, 'secret key is invalid'))
    const reply = await post(`${WEBHOOK}/%ED%A0%80/${bot.chatbotID}`, [
      'Secret-Key: wrong',
      'Content-Length: 0',
    ])
    expect(text(reply)).toEqual(plain(401, 'secret key is invalid'))
    const elsewhere = await post('/v1/client/%zz', ['Content-Length: 0'])
    expect(json(elsewhere)).toEqual(inEnvelope(404, '40400', 'No endpoint at /v1/client/%zz'))
  })

  test('the webhook path answers a wrong method, or a wrong shape, in plain text too', async () => {
    const get = await rawRequest(
      server().url,
      `GET ${WEBHOOK}/${bot.organizationID}/${bot.chatbotID} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    )
    expect(text(get)).toEqual(plain(405, 'method not allowed'))
    const short = await post(`${WEBHOOK}/${bot.organizationID}`, ['Content-Length: 0'])
    expect(text(short)).toEqual(plain(401, 'secret key is invalid'))
  })

  test('headers over the limit are 431 in the envelope, or in plain text on the webhook', async () => {
    const huge = `X-Padding: ${'a'.repeat(20_000)}`
    const reply = await post(TICKET, [`Server-Key: ${serverKey}`, huge, 'Content-Length: 0'])
    expect(json(reply)).toEqual(inEnvelope(431, '43100', 'Request headers are too large'))
    const webhook = await post(`${WEBHOOK}/${bot.organizationID}/${bot.chatbotID}`, [
      huge,
      'Content-Length: 0',
    ])
    expect(text(webhook)).toEqual(plain(431, 'request headers are too large'))
  })

  test('malformed framing is 400 in the envelope, or in plain text on the webhook', async () => {
    const framings = [
      ['Content-Length: 2', 'Content-Length: 3'],
      ['Content-Length: 2', 'Transfer-Encoding: chunked'],
      ['Content-Length: abc'],
    ]
    for (const framing of framings) {
      const reply = await post(TICKET, [`Server-Key: ${serverKey}`, ...framing], '{}')
      expect({ framing, reply: json(reply) }).toEqual({
        framing,
        reply: inEnvelope(400, '40002', 'Request is malformed'),
      })
      const webhook = await post(`${WEBHOOK}/${bot.organizationID}/${bot.chatbotID}`, framing, '{}')
      expect({ framing, reply: text(webhook) }).toEqual({ framing, reply: plain(400, 'invalid request') })
    }
  })
})
