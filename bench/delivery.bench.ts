import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cli, DURATION, freshStorage, load, poster, signIn, startService } from './lib.js'

const CASES = 200
/** Visitor messages per second offered in all (the goal: ≥ 1,000 deliveries/s with < 1 s lag). */
const RATE = Number(process.env.BENCH_DELIVERY_RATE ?? 1200)
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0

export interface DeliveryFigures {
  /** What received: the chatbot (visitor messages), or an event endpoint (their message.new). */
  target: DeliveryTarget
  botCapacity: number
  offered: number
  delivered: number
  lagP50: number
  lagP99: number
}

/**
 * The outbox to a local bot that acknowledges at once: visitors in CASES cases write RATE
 * messages/s in all for DURATION s; the bot measures deliveries/s and the lag from the visitor's
 * send to the delivery's arrival. The bot's own capacity (autocannon straight at it) is the baseline.
 */
export type DeliveryTarget = 'chatbot' | 'event endpoint'

/** The visitor's send time a delivery carries: in a chatbot's message, or in a message.new event. */
function sentAtOf(target: DeliveryTarget, body: string): number {
  const json = JSON.parse(body) as {
    message?: { text?: { body: string } }
    data?: { message?: { body: string } }
  }
  return Number(target === 'chatbot' ? json.message?.text?.body : json.data?.message?.body)
}

export async function benchDelivery(target: DeliveryTarget = 'chatbot'): Promise<DeliveryFigures> {
  const lags: number[] = []
  let measuring = false
  let received = 0
  const bot = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      response.writeHead(200).end('ok')
      const sentAt = sentAtOf(target, body)
      if (measuring && Number.isFinite(sentAt)) {
        received++
        lags.push(Date.now() - sentAt)
      }
    })
  })
  await new Promise<void>((resolve) => bot.listen(0, '127.0.0.1', resolve))
  const botURL = `http://127.0.0.1:${(bot.address() as AddressInfo).port}/`
  const capacity = await load('bot', {
    url: botURL,
    method: 'POST',
    body: '{"message":{}}',
    connections: 10,
    warmupSeconds: 1,
  })

  const storage = await freshStorage()
  const service = await startService(['dist/main.js'], storage.env)
  try {
    const { organizationID } = cli(['org', 'create', '--name', 'Bench'], storage.env)
    const { serverKey } = cli(['server-key', 'create', '--org', organizationID as string], storage.env)
    const org = organizationID as string
    // Events: no chatbot (cases wait for agents), one endpoint taking message.new: its deliveries
    // go one at a time, in order, so the round trip bounds them.
    cli(
      target === 'chatbot'
        ? ['chatbot', 'create', '--org', org, '--name', 'Bot', '--url', botURL]
        : ['event-endpoint', 'create', '--org', org, '--url', botURL, '--events', 'message.new'],
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
    measuring = true
    let offered = 0
    let sequence = 0
    const until = Date.now() + DURATION * 1000
    const started = Date.now()
    await Promise.all(
      writers.map(async ({ auth, caseID }, index) => {
        // Each writer sends every CASES / RATE seconds, the writers spread over that period.
        const period = (CASES / RATE) * 1000
        await new Promise((resolve) => setTimeout(resolve, (index / CASES) * period))
        for (let next = Date.now(); Date.now() < until; next += period) {
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())))
          const body = String(Date.now())
          await post('/api/visitor/v1/client/case/send_message', auth, {
            id: caseID,
            localID: `m-${sequence++}`,
            messageType: 'text',
            text: { body },
          })
          offered++
        }
      }),
    )
    const seconds = (Date.now() - started) / 1000
    const deliveredInWindow = received
    await new Promise((resolve) => setTimeout(resolve, 2000))
    lags.sort((a, b) => a - b)
    return {
      target,
      botCapacity: capacity.requestsPerSecond,
      offered: offered / seconds,
      delivered: deliveredInWindow / seconds,
      lagP50: percentile(lags, 0.5),
      lagP99: percentile(lags, 0.99),
    }
  } finally {
    await service.stop()
    await storage.drop()
    bot.close()
  }
}

export function printDelivery(figures: DeliveryFigures): void {
  console.log(
    `\ndelivery to ${figures.target === 'chatbot' ? 'a chatbot' : 'an event endpoint (message.new)'}: ${CASES} cases writing ${RATE} messages/s for ${DURATION} s, local receiver (SQLite)`,
  )
  console.log(`bot capacity (baseline, autocannon straight at it): ${figures.botCapacity.toFixed(0)} req/s`)
  console.log(
    `visitor messages written: ${figures.offered.toFixed(0)}/s; delivered: ${figures.delivered.toFixed(0)}/s ` +
      `(${((figures.delivered / figures.botCapacity) * 100).toFixed(1)}% of the bot's capacity); ` +
      `lag p50 ${figures.lagP50.toFixed(0)} ms, p99 ${figures.lagP99.toFixed(0)} ms`,
  )
}
