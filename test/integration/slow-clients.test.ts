import { once } from 'node:events'
import type { IncomingMessage } from 'node:http'
import { Worker } from 'node:worker_threads'
import { afterEach, beforeAll, expect, test } from 'vitest'
import { startServer, stopServer, useServer } from '../support/app.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { answerOn, openRaw, type RawSocket, within } from '../support/raw-sockets.js'
import { connect } from '../support/sockets.js'

// Slow and idle clients (docs/reference/limits.md): a request must arrive within its time limits,
// one client address holds a bounded number of connections, and every credential carried in a
// header or a cookie is checked before the body is read. The limits are made small here; the
// tests wait for the server's own events (a close, an answer), never for a time.

const LOGIN = '/api/agent/v1/auth/login'
/** Long enough for the server's answer to come; the old code never answered at all. */
const PATIENCE_MS = 5000

const opened: RawSocket[] = []
/** A raw connection, closed after the test whatever happens. */
function raw(url: string, localAddress?: string): RawSocket {
  const socket = openRaw(url, localAddress)
  opened.push(socket)
  return socket
}
const timers: NodeJS.Timeout[] = []
afterEach(() => {
  for (const timer of timers.splice(0)) clearInterval(timer)
  for (const { socket } of opened.splice(0)) socket.destroy()
})

/** Writes `text` to the connection one character every 20 ms, for as long as the test runs. */
function trickle(socket: RawSocket, text: string): void {
  let next = 0
  timers.push(
    setInterval(() => {
      if (!socket.socket.destroyed) socket.socket.write(text[next++ % text.length] ?? ' ')
    }, 20),
  )
}

const head = (path: string, headers: Record<string, string> = {}) =>
  `POST ${path} HTTP/1.1\r\nHost: parley.test\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`

/** The status and error code of an envelope answer. */
const verdict = ({ status, body }: { status: number; body: string }) => {
  try {
    return { status, code: (JSON.parse(body) as { error: { code: string } }).error.code }
  } catch {
    return { status, code: body }
  }
}

describeEachDatabase('time limits of a request', (dialect) => {
  const server = useServer(dialect, {
    HTTP_HEADERS_TIMEOUT: '0.3',
    HTTP_REQUEST_TIMEOUT: '0.5',
    HTTP_IDLE_TIMEOUT: '1',
  })

  test('a login body sent a byte at a time is cut off at the request time limit (408)', async () => {
    const slow = raw(server().url)
    await slow.opened
    // Within the login's body limit (a larger one is refused at once: 413).
    slow.socket.write(head(LOGIN, { 'content-type': 'application/json', 'content-length': '8000' }))
    trickle(slow, '{"email":"a@example.com",')
    const answer = await within(answerOn(slow), PATIENCE_MS, 'an answer to the slow body')
    expect(verdict(answer)).toEqual({ status: 408, code: '40800' })
    await within(slow.closed, PATIENCE_MS, 'the connection closed')
  })

  test('headers sent a byte at a time are cut off at the headers time limit (408)', async () => {
    const slow = raw(server().url)
    await slow.opened
    slow.socket.write(`POST ${LOGIN} HTTP/1.1\r\nHost: parley.test\r\n`)
    trickle(slow, 'X-Padding: slow\r\n')
    const answer = await within(answerOn(slow), PATIENCE_MS, 'an answer to the slow headers')
    expect(verdict(answer)).toEqual({ status: 408, code: '40800' })
  })

  test('a connection that sends nothing is answered 408 and closed at the headers time limit', async () => {
    const silent = raw(server().url)
    await silent.opened
    const text = await within(silent.closed, PATIENCE_MS, 'the silent connection closed')
    expect(text).toMatch(/^HTTP\/1.1 408 /)
  })

  test('an open WebSocket is not a slow request: it outlives the time limits', async () => {
    const org = await createOrganization(server(), 'Sockets')
    const alice = await org.signIn('alice')
    const socket = await connect(server().url, alice.accessToken)
    try {
      // Once a slow request has been cut off, the limits have run out for the socket too.
      const slow = raw(server().url)
      await slow.opened
      slow.socket.write(head(LOGIN, { 'content-type': 'application/json', 'content-length': '10' }))
      trickle(slow, ' ')
      await within(slow.closed, PATIENCE_MS, 'the slow request cut off')
      socket.send({ eventName: 'chat/startTyping', data: { roomID: '1' }, id: 7 })
      const [answer] = await socket.waitFor('error')
      expect(answer.id).toBe(7)
    } finally {
      await socket.close()
    }
  })
})

test('a headers limit longer than the default request limit of Node (300 s) starts', async () => {
  const server = await startServer('sqlite', { HTTP_HEADERS_TIMEOUT: '400', HTTP_REQUEST_TIMEOUT: '600' })
  try {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
  } finally {
    await stopServer(server)
  }
})

describeEachDatabase('connections per client address', (dialect) => {
  const server = useServer(dialect, { CONNECTIONS_PER_ADDRESS: '3' })

  test('an address holds at most its share of connections; other addresses are served', async () => {
    const held = [raw(server().url), raw(server().url), raw(server().url)]
    await Promise.all(held.map((socket) => socket.opened))
    const extra = raw(server().url)
    expect(await within(extra.closed, PATIENCE_MS, 'the connection over the cap closed')).toBe('')

    const other = raw(server().url, '127.0.0.2')
    await other.opened
    other.socket.write('GET /healthz HTTP/1.1\r\nHost: parley.test\r\n\r\n')
    expect((await within(answerOn(other), PATIENCE_MS, 'healthz from another address')).status).toBe(200)

    // One of the held connections ends: the address may connect again.
    held[0]?.socket.end()
    await held[0]?.closed
    let status = 0
    for (let attempt = 0; attempt < 100 && status !== 200; attempt++) {
      const again = raw(server().url)
      again.socket.write('GET /healthz HTTP/1.1\r\nHost: parley.test\r\n\r\n')
      status = await answerOn(again).then(
        (answer) => answer.status,
        () => 0,
      )
    }
    expect(status).toBe(200)
  })
})

/** The client whose one request comes behind the burst. */
const OTHER_ADDRESS = '127.0.0.3'

describeEachDatabase('a burst of connections from one address', (dialect) => {
  const server = useServer(dialect)

  test("is read a few connections per turn: another address's request is not queued behind it", async () => {
    const ready = new Int32Array(new SharedArrayBuffer(4))
    const client = new Worker(new URL('../support/burst-client.mjs', import.meta.url), {
      workerData: {
        port: Number(new URL(server().url).port),
        count: 100,
        burstAddress: '127.0.0.2',
        otherAddress: OTHER_ADDRESS,
        ready,
      },
    })
    // The order in which the server reads the requests, by client address. The client's own
    // order of answers is not it: a busy client thread takes many answers in one turn, in any order.
    const read: string[] = []
    const reading = (request: IncomingMessage) => read.push(request.socket.remoteAddress ?? '')
    server().app.server.on('request', reading)
    try {
      const answers = once(client, 'message')
      // This thread (the server's) waits while the client connects and writes everything: then
      // the server finds the burst and, after it, the other request, all at once.
      expect(Atomics.wait(ready, 0, 0, PATIENCE_MS)).toBe('ok')
      const [order] = (await within(answers, PATIENCE_MS * 4, 'every answer')) as [string[]]
      expect(order.filter((name) => name === 'burst')).toHaveLength(100)
      expect(order).toContain('other')
      // Read all at once, the burst would be read before the other request; paced, the other
      // request is read after the first CONNECTIONS_READ_AT_ONCE of the burst.
      expect(read).toHaveLength(101)
      expect(read.indexOf(OTHER_ADDRESS)).toBeLessThan(20)
    } finally {
      server().app.server.off('request', reading)
      await client.terminate()
    }
  })
})

describeEachDatabase('connections per client address behind a proxy', (dialect) => {
  const server = useServer(dialect, { CONNECTIONS_PER_ADDRESS: '2', TRUST_PROXY: '127.0.0.1' })

  test('clients are counted by their forwarded address, before anything is read', async () => {
    const forwarded = (client: string) => ({ 'x-forwarded-for': client })
    // Two logins from one client whose bodies never come hold its two places.
    for (let i = 0; i < 2; i++) {
      const slow = raw(server().url)
      slow.socket.write(
        head(LOGIN, {
          ...forwarded('198.51.100.7'),
          'content-type': 'application/json',
          'content-length': '100',
        }),
      )
    }
    // The proxy's own connections are not capped: this is its third (and fourth). /healthz has no
    // limit of its own, so a 429 is the address's cap (once the two have been counted).
    const healthz = (client: string) =>
      fetch(`${server().url}/healthz`, { headers: forwarded(client) }).then(async (reply) => ({
        status: reply.status,
        json: await reply.json(),
      }))
    let third = await healthz('198.51.100.7')
    for (let attempt = 0; attempt < 100 && third.status !== 429; attempt++)
      third = await healthz('198.51.100.7')
    expect(third).toMatchObject({ status: 429, json: { error: { code: '42900' } } })
    expect((await healthz('198.51.100.8')).status).toBe(200)
  })
})

describeEachDatabase('credentials before bodies', (dialect) => {
  const server = useServer(dialect)
  let webhook = ''

  beforeAll(async () => {
    const org = await createOrganization(server(), 'Bodies')
    const bot = await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Helper',
      url: 'http://127.0.0.1:9/bot',
    })
    webhook = `/api/visitor/v1/webhook/chatbot/custom/${org.organizationID}/${bot.chatbotID}`
  })

  // A request whose credential is refused is answered without its body: here the body never comes.
  const refused: [string, () => string, Record<string, string>, number, string][] = [
    ['agent API, no credential', () => '/api/agent/v1/auth/logout', {}, 401, '40101'],
    [
      'agent API, unknown token',
      () => '/api/agent/v1/case/get_list',
      { authorization: 'Bearer nope' },
      401,
      '40103',
    ],
    ['agent API upload', () => '/api/agent/v1/file/upload', {}, 401, '40101'],
    ['server API', () => '/v1/server/case/get', {}, 400, '40001'],
    ['chat API', () => '/v1/chat/message/send', {}, 401, '40101'],
    ['visitor API', () => '/api/visitor/v1/client/case/create', {}, 401, '40101'],
    ['ticket exchange', () => '/v1/auth/access_token/request', {}, 401, '40101'],
    ['TapTalk.io project configs', () => '/v1/client/project_configs', {}, 400, '40001'],
    ['chatbot webhook', () => webhook, { 'secret-key': 'wrong' }, 401, ''],
  ]
  test('routes read before their credential is checked take small bodies only (413)', async () => {
    const big = JSON.stringify({ email: 'a@example.com', password: 'p', padding: 'x'.repeat(10_000) })
    const login = await server().post(LOGIN, big, { 'content-type': 'application/json' })
    expect(login.status).toBe(413)
    const exchange = await server().post('/v1/auth/access_token/request', big, {
      'content-type': 'application/json',
      authorization: 'Bearer any-ticket',
    })
    expect(exchange.json.error.code).toBe('41300')
  })

  test.each(refused)('%s: refused before the body is read', async (_, path, headers, status, code) => {
    const client = raw(server().url)
    await client.opened
    client.socket.write(
      head(path(), { 'content-type': 'application/json', 'content-length': '1000000', ...headers }),
    )
    const answer = await within(answerOn(client), PATIENCE_MS, 'the refusal')
    expect(answer.status).toBe(status)
    if (code) expect(verdict(answer).code).toBe(code)
  })
})
