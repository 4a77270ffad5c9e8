import { type ChildProcess, fork } from 'node:child_process'
import { cli, DURATION, freshStorage, load, poster, signIn, startService } from './lib.js'

const CASES = 200
/** Visitor messages per second offered in all (the goal: ≥ 1,000 deliveries/s with < 1 s lag). */
const RATE = Number(process.env.BENCH_DELIVERY_RATE ?? 1200)
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0

/** What received: the chatbot (visitor messages), or an event endpoint (their message.new). */
export type DeliveryTarget = 'chatbot' | 'event endpoint'

export interface DeliveryFigures {
  target: DeliveryTarget
  database: 'SQLite' | 'PostgreSQL'
  botCapacity: number
  offered: number
  delivered: number
  lagP50: number
  lagP99: number
  /** The visitor's send itself (request to answer), p50: the part of the lag before the outbox. */
  writeP50: number
  /** Attempts the server logged as failed (a failed one holds an endpoint's queue for its backoff). */
  failedAttempts: number
}

/** The receiver in its own process (bench/delivery-receiver.ts), and a way to ask it over IPC. */
async function startReceiver() {
  const child: ChildProcess = fork('bench/delivery-receiver.ts', [], { execArgv: ['--import', 'tsx'] })
  const next = <T>() => new Promise<T>((resolve) => child.once('message', (message) => resolve(message as T)))
  const { port } = await next<{ port: number }>()
  return {
    url: `http://127.0.0.1:${port}/`,
    start: () => child.send('start'),
    count: () => {
      const answer = next<{ received: number }>()
      child.send('count')
      return answer
    },
    stop: () => {
      const answer = next<{ received: number; lags: number[] }>()
      child.send('stop')
      return answer
    },
    close: () => child.kill(),
  }
}

/**
 * The outbox to a local receiver that acknowledges at once: visitors in CASES cases write RATE
 * messages/s in all for DURATION s; the receiver measures deliveries/s and the lag from the
 * visitor's send to the delivery's arrival. Its own capacity (autocannon straight at it) is the
 * baseline. To a chatbot, each case's messages; to an event endpoint (no chatbot: the cases wait
 * for agents), every message's `message.new`, all in one endpoint's order.
 */
export async function benchDelivery(
  target: DeliveryTarget = 'chatbot',
  postgresURL?: string,
): Promise<DeliveryFigures> {
  const receiver = await startReceiver()
  const capacity = await load('bot', {
    url: receiver.url,
    method: 'POST',
    body: '{"message":{}}',
    connections: 10,
    warmupSeconds: 1,
  })

  const storage = await freshStorage(postgresURL)
  let failedAttempts = 0
  // Its 200 visitors all write from 127.0.0.1 at once: no cap per address.
  const env = { ...storage.env, CONNECTIONS_PER_ADDRESS: '0' }
  const service = await startService(['dist/main.js'], env, '/healthz', (line) => {
    if (line.includes('delivery') && line.includes('failed')) failedAttempts++
  })
  try {
    const { organizationID } = cli(['org', 'create', '--name', 'Bench'], storage.env)
    const { serverKey } = cli(['server-key', 'create', '--org', organizationID as string], storage.env)
    const org = organizationID as string
    cli(
      target === 'chatbot'
        ? ['chatbot', 'create', '--org', org, '--name', 'Bot', '--url', receiver.url]
        : ['event-endpoint', 'create', '--org', org, '--url', receiver.url, '--events', 'message.new'],
      storage.env,
    )
    const post = poster(service.url)
    const writers = await Promise.all(
      Array.from({ length: CASES }, async (_, i) => {
        const { auth } = await signIn(post, serverKey as string, `visitor-${i}`)
        const opened = await post('/api/visitor/v1/client/case/create', auth, { message: 'warm-up' })
        return { auth, caseID: (opened.case as unknown as { caseID: string }).caseID }
      }),
    )
    await new Promise((resolve) => setTimeout(resolve, 1000))
    receiver.start()
    failedAttempts = 0
    let offered = 0
    let sequence = 0
    const writes: number[] = []
    const until = Date.now() + DURATION * 1000
    const started = Date.now()
    await Promise.all(
      writers.map(async ({ auth, caseID }, index) => {
        // Each writer sends every CASES / RATE seconds, the writers spread over that period.
        const period = (CASES / RATE) * 1000
        await new Promise((resolve) => setTimeout(resolve, (index / CASES) * period))
        for (let next = Date.now(); Date.now() < until; next += period) {
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())))
          const sentAt = Date.now()
          await post('/api/visitor/v1/client/case/send_message', auth, {
            id: caseID,
            localID: `m-${sequence++}`,
            messageType: 'text',
            text: { body: String(sentAt) },
          })
          writes.push(Date.now() - sentAt)
          offered++
        }
      }),
    )
    const seconds = (Date.now() - started) / 1000
    const { received: deliveredInWindow } = await receiver.count()
    // Late deliveries still count for the lag.
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const { lags } = await receiver.stop()
    lags.sort((a, b) => a - b)
    writes.sort((a, b) => a - b)
    return {
      target,
      database: postgresURL ? 'PostgreSQL' : 'SQLite',
      botCapacity: capacity.requestsPerSecond,
      offered: offered / seconds,
      delivered: deliveredInWindow / seconds,
      lagP50: percentile(lags, 0.5),
      lagP99: percentile(lags, 0.99),
      writeP50: percentile(writes, 0.5),
      failedAttempts,
    }
  } finally {
    await service.stop()
    await storage.drop()
    receiver.close()
  }
}

export function printDelivery(rows: DeliveryFigures[]): void {
  console.log(
    `\nDelivery: ${CASES} cases writing ${RATE} messages/s for ${DURATION} s, to a local receiver in its own process`,
  )
  const header = [
    'receiver',
    'database',
    'its capacity',
    'offered',
    'delivered',
    'lag p50',
    'lag p99',
    'send p50',
    'failed',
  ]
  const lines = rows.map((r) => [
    r.target === 'chatbot' ? 'chatbot (200 cases)' : 'one event endpoint (message.new)',
    r.database,
    `${r.botCapacity.toFixed(0)}/s`,
    `${r.offered.toFixed(0)}/s`,
    `${r.delivered.toFixed(0)}/s (${((r.delivered / r.offered) * 100).toFixed(1)}% of offered)`,
    `${r.lagP50.toFixed(0)} ms`,
    `${r.lagP99.toFixed(0)} ms`,
    `${r.writeP50.toFixed(0)} ms`,
    String(r.failedAttempts),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)))
  const format = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ')
  console.log(format(header))
  for (const line of lines) console.log(format(line))
}
