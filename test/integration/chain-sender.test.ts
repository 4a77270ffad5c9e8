import { Worker } from 'node:worker_threads'
import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { ThreadChainSender } from '../../src/domain/delivery/chain-sender.js'
import { signedRequest } from '../../src/domain/delivery/target.js'
import { DestinationPolicy, parseAllowList } from '../../src/lib/destinations.js'

// One endpoint's deliveries go one POST after another. On the server's event loop each POST would
// also wait its turn behind everything the server is doing; the sender thread's loop does nothing
// else. Shown here by blocking this (the "server's") thread while a chain goes out.

const SECRET = `whsec_${Buffer.alloc(24, 5).toString('base64')}`

/** A receiver on a thread of its own: counts requests in shared memory (so a blocked thread can wait for them). */
const RECEIVER = `
const { workerData, parentPort } = require('node:worker_threads')
const http = require('node:http')
const count = new Int32Array(workerData.shared)
const requests = []
const server = http.createServer((req, res) => {
  let body = ''
  req.on('data', (chunk) => { body += chunk })
  req.on('end', () => {
    requests.push({ body, headers: req.headers })
    // Counted before it is answered: a send that has its answer is already counted.
    Atomics.add(count, 0, 1)
    Atomics.notify(count, 0)
    res.writeHead(body.includes('"refuse"') ? 400 : 200).end('ok')
  })
})
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }))
parentPort.on('message', () => parentPort.postMessage({ requests }))
`

const shared = new SharedArrayBuffer(4)
const count = new Int32Array(shared)
let receiver: Worker
let url = ''
const sender = new ThreadChainSender(new DestinationPolicy(parseAllowList('127.0.0.1')))

beforeAll(async () => {
  receiver = new Worker(RECEIVER, { eval: true, workerData: { shared } })
  const { port } = await new Promise<{ port: number }>((resolve) => receiver.once('message', resolve))
  url = `http://127.0.0.1:${port}/events`
})
afterAll(async () => {
  await sender.close()
  await receiver.terminate()
})

const chainOf = (bodies: string[], deadline = Date.now() + 10_000) => ({
  requests: bodies.map((body, n) => signedRequest(`id-${n}`, url, SECRET, body)),
  deadline,
  clockOffset: 0,
  timeoutMs: 5000,
})
const received = async () => {
  const answer = new Promise<{ requests: { body: string; headers: Record<string, string> }[] }>((resolve) =>
    receiver.once('message', resolve),
  )
  receiver.postMessage('requests')
  return (await answer).requests
}

test('a chain goes out, in order and signed, while the thread that asked for it is blocked', async () => {
  await sender.send(chainOf(['{"warm":"up"}'])) // the thread is started
  const bodies = Array.from({ length: 20 }, (_, n) => JSON.stringify({ n }))
  const start = Atomics.load(count, 0)
  const sending = sender.send(chainOf(bodies))
  // Blocked: nothing on this thread runs (on the old engine, nothing would be sent) until all 20 arrived.
  let seen = start
  while (seen < start + 20) {
    if (Atomics.wait(count, 0, seen, 10_000) === 'timed-out') break
    seen = Atomics.load(count, 0)
  }
  expect(seen - start).toBe(20)
  const attempts = await sending
  expect(attempts).toEqual(bodies.map(() => ({ status: 200 })))
  const got = (await received()).slice(-20)
  expect(got.map((r) => r.body)).toEqual(bodies)
  for (const request of got) expect(new Webhook(SECRET).verify(request.body, request.headers)).toBeDefined()
})

test('a chain stops at the first delivery not taken; past its deadline, nothing is attempted', async () => {
  const before = (await received()).length
  const attempts = await sender.send(chainOf(['{"a":1}', '{"refuse":1}', '{"a":3}']))
  expect(attempts).toEqual([{ status: 200 }, { status: 400 }])
  expect((await received()).slice(before).map((r) => r.body)).toEqual(['{"a":1}', '{"refuse":1}'])
  expect(await sender.send(chainOf(['{"a":4}'], Date.now() - 1))).toEqual([])
})

test('a destination the policy refuses is refused on the thread too', async () => {
  const strict = new ThreadChainSender(new DestinationPolicy())
  try {
    const [attempt] = await strict.send(chainOf(['{"a":5}']))
    expect(attempt).toMatchObject({ status: 'refused' })
  } finally {
    await strict.close()
  }
})
