import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { retryDelay } from '../../src/domain/delivery/schedule.js'
import { send, type TestServer, useServer } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import { openCase, roomMessages } from '../support/cases.js'
import { createOrganization, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'

const V = '/api/visitor/v1/client'

describeEachDatabase('delivery to chatbots', (dialect) => {
  // The jitter is pinned to 0, so retries fall exactly on the schedule.
  const server = useServer(dialect, { BOT_HANDOVER_AFTER: '60' }, { delivery: { jitter: () => 0 } })
  let bot: Awaited<ReturnType<typeof startBot>>
  let answer: (index: number) => number = () => 200
  let visitorCount = 0

  beforeAll(async () => {
    bot = await startBot((_request, index) => answer(index))
  })
  afterAll(async () => {
    await bot.close()
  })

  /** A fresh organization whose chatbot is the stand-in, and a visitor with an open case. */
  async function setup(on: TestServer = server()) {
    const org = await createOrganization(on, `Org ${++visitorCount}`)
    const chatbot = await on.app.services.chatbots.create(operator, org.organizationID, {
      name: 'Bot',
      url: bot.url,
    })
    const visitor = await org.signIn(`visitor-${visitorCount}`)
    const opened = await openCase(visitor, 'first message')
    return { org, chatbot, visitor, opened }
  }
  const say = (visitor: TestClient, caseID: string, body: string) =>
    visitor.call(`${V}/case/send_message`, { id: caseID, localID: body, messageType: 'text', text: { body } })
  const caseStatus = async (caseID: string) =>
    (
      await server()
        .testDatabase.database.db.selectFrom('cases')
        .select('status')
        .where('id', '=', caseID)
        .executeTakeFirstOrThrow()
    ).status
  const drain = () => server().app.delivery.drain()
  const deliveryIDs = async (caseID: string) =>
    (
      await server()
        .testDatabase.database.db.selectFrom('deliveries')
        .select('id')
        .where('case_id', '=', caseID)
        .orderBy('seq')
        .execute()
    ).map((d) => d.id)
  const deliveryStatuses = async (caseID: string) =>
    (
      await server()
        .testDatabase.database.db.selectFrom('deliveries')
        .select('status')
        .where('case_id', '=', caseID)
        .orderBy('seq')
        .execute()
    ).map((d) => d.status)

  test('the bot receives the documented body and headers, and the signature verifies', async () => {
    answer = () => 200
    const { org, chatbot, visitor, opened } = await setup()
    const before = bot.requests.length
    await drain()
    const [request] = bot.requests.slice(before)
    expect(request?.json).toEqual({
      caseID: opened.caseID,
      channelType: 'launcher',
      channelID: org.organizationID,
      channelName: `Org ${visitorCount}`,
      sender: {
        customerUserID: `visitor-${visitorCount}`,
        phone: '',
        contactName: `User visitor-${visitorCount}`,
      },
      message: { id: expect.stringMatching(/^\d+$/), type: 'text', text: { body: 'first message' } },
    })
    const headers = request?.headers ?? {}
    expect(headers['x-secret-key']).toBe(chatbot.secretKey)
    expect(headers['webhook-id']).toMatch(/^\d+$/)
    expect(Number(headers['webhook-timestamp'])).toBe(Math.floor(server().clock.now() / 1000))
    const verified = new Webhook(chatbot.secretKey).verify(request?.body as string, {
      'webhook-id': headers['webhook-id'] as string,
      'webhook-timestamp': headers['webhook-timestamp'] as string,
      'webhook-signature': headers['webhook-signature'] as string,
    })
    expect(verified).toEqual(request?.json)
    // Delivered once: nothing more goes out.
    await drain()
    expect(bot.requests.length).toBe(before + 1)
    void visitor
  })

  describe('/metrics', () => {
    // A server of its own: its counters start at zero, whatever the other tests delivered.
    const counted = useServer(dialect, {}, { delivery: { jitter: () => 0 } })
    const metrics = async () => {
      const text = (await send(`${counted().url}/metrics`, { method: 'GET' })).text
      const value = (name: string) =>
        Number(text.match(new RegExp(`^parley_deliveries_${name} (\\S+)$`, 'm'))?.[1])
      return {
        sent: value('sent_total'),
        retried: value('retried_total'),
        failed: value('failed_total'),
        handovers: value('handovers_total'),
        lag: value('lag_seconds'),
      }
    }

    // First in this server's life: nothing is due yet.
    test('a round with nothing due claims nothing, in no transaction', async () => {
      const { app, clock, testDatabase } = counted()
      const { database } = testDatabase
      const transaction = database.transaction
      let opened = 0
      database.transaction = <T>(work: Parameters<typeof transaction<T>>[0]) => {
        opened++
        return transaction.call(database, work) as Promise<T>
      }
      try {
        clock.advance(1000) // the round's once-a-second look at what is due runs
        expect(await app.delivery.tick()).toBe(0)
      } finally {
        database.transaction = transaction
      }
      expect(opened).toBe(0)
    })

    test('counts deliveries sent, retried and failed, handovers, and the lag of the oldest due', async () => {
      const { clock } = counted()
      const drainCounted = () => counted().app.delivery.drain()
      await setup(counted())
      expect(await metrics()).toEqual({ sent: 0, retried: 0, failed: 0, handovers: 0, lag: 0 })

      clock.advance(5000)
      answer = () => 503
      await drainCounted() // the first message has waited 5 s; its attempt is retried in 1 s
      expect(await metrics()).toEqual({ sent: 0, retried: 1, failed: 0, handovers: 0, lag: 5 })

      clock.advance(1000)
      answer = () => 200
      await drainCounted()
      expect(await metrics()).toEqual({ sent: 1, retried: 1, failed: 0, handovers: 0, lag: 0 })

      await setup(counted())
      answer = () => 404 // failed for good: the case goes to agents
      await drainCounted()
      expect(await metrics()).toEqual({ sent: 1, retried: 1, failed: 1, handovers: 1, lag: 0 })
    })
  })

  test('retries follow the schedule with one webhook-id; later messages of the case wait their turn', async () => {
    const { visitor, opened } = await setup()
    const failures = 3
    const before = bot.requests.length
    answer = (index) => (index - before < failures ? 503 : 200)
    await say(visitor, opened.caseID, 'second')
    await say(visitor, opened.caseID, 'third')

    await drain() // attempt 1 of the first message fails; the others wait behind it
    for (let attempt = 1; attempt <= failures; attempt++) {
      expect(bot.requests.length).toBe(before + attempt)
      server().clock.advance(retryDelay(attempt, 0) - 1)
      await drain()
      expect(bot.requests.length, 'not due yet').toBe(before + attempt)
      server().clock.advance(1)
      await drain()
    }
    const sent = bot.requests.slice(before)
    const firstIDs = new Set(sent.slice(0, failures + 1).map((r) => r.headers['webhook-id']))
    expect(firstIDs.size).toBe(1)
    expect(sent.map((r) => r.json.message.text.body)).toEqual([
      'first message',
      'first message',
      'first message',
      'first message',
      'second',
      'third',
    ])
    expect(retryDelay(1, 0)).toBe(1000)
    expect(retryDelay(2, 0)).toBe(2000)
    expect(retryDelay(3, 0)).toBe(4000)
    expect(retryDelay(30, 0)).toBe(10 * 60 * 1000)
    expect(retryDelay(1, 0.999)).toBeGreaterThanOrEqual(800)
    expect(await caseStatus(opened.caseID)).toBe('bot')
  })

  test('a permanent 4xx hands the case over to agents', async () => {
    const { opened } = await setup()
    answer = () => 404
    await drain()
    expect(await caseStatus(opened.caseID)).toBe('queued')
    expect(await deliveryStatuses(opened.caseID)).toEqual(['failed'])
    const last = (await roomMessages(server(), opened.roomID)).at(-1)
    expect(last).toMatchObject({
      sender_id: 'system',
      body: 'The chatbot could not take the message; the case goes to an agent',
    })
  })

  test('each failed attempt is one warn line: case, delivery, status or error, attempt, next attempt; no secret or body', async () => {
    const { chatbot, visitor, opened } = await setup()
    const before = bot.requests.length
    answer = (index) => (index - before === 0 ? 503 : 404)
    await say(visitor, opened.caseID, 'my parcel number is 0042')
    const [first] = await deliveryIDs(opened.caseID)
    await drain() // 503: retried after 1 s
    server().clock.advance(1000)
    await drain() // 404: failed for good
    // A bot nobody listens for: a network error.
    const org = await createOrganization(server(), `Org ${++visitorCount}`)
    const gone = await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Gone',
      url: 'http://127.0.0.1:1/bot',
    })
    const lonely = await openCase(await org.signIn(`visitor-${visitorCount}`), 'hello?')
    const [unreachable] = await deliveryIDs(lonely.caseID)
    await drain()

    const lines = server()
      .logs.map((line) => JSON.parse(line))
      .filter((line) => [first, unreachable].includes(line.deliveryID))
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        caseID: opened.caseID,
        deliveryID: first,
        chatbotID: chatbot.chatbotID,
        attempt: 1,
        status: 503,
        nextAttempt: new Date(server().clock.now()).toISOString(),
      }),
      expect.objectContaining({
        level: 40,
        caseID: opened.caseID,
        deliveryID: first,
        attempt: 2,
        status: 404,
        nextAttempt: 'failed for good',
      }),
      expect.objectContaining({
        level: 40,
        caseID: lonely.caseID,
        deliveryID: unreachable,
        chatbotID: gone.chatbotID,
        attempt: 1,
        error: expect.stringContaining('ECONNREFUSED'),
        nextAttempt: new Date(server().clock.now() + 1000).toISOString(),
      }),
    ])
    const logged = server().logs.join('\n')
    for (const secret of [chatbot.secretKey, gone.secretKey, 'first message', 'hello?', 'v1,'])
      expect(logged).not.toContain(secret)
  })

  test('a bot that stays down past BOT_HANDOVER_AFTER loses the case; its pending deliveries are abandoned', async () => {
    const { visitor, opened } = await setup()
    answer = () => 500
    await drain()
    await say(visitor, opened.caseID, 'anyone there?')
    server().clock.advance(59_000)
    await drain()
    expect(await caseStatus(opened.caseID)).toBe('bot')
    server().clock.advance(1_000)
    await drain()
    expect(await caseStatus(opened.caseID)).toBe('queued')
    expect(await deliveryStatuses(opened.caseID)).toEqual(['abandoned', 'abandoned'])
  })
  test('a case that cannot be handed over does not hold up the others', async () => {
    answer = () => 500
    const cases = await Promise.all([setup(), setup(), setup()])
    await drain()
    const mine = new Set(cases.map(({ opened }) => opened.caseID))
    // The first of these cases the sweep reaches fails (as a storage hiccup would); the rest must go on.
    const service = server().app.services.cases.chatbotCases
    const handOver = service.handOver.bind(service)
    let failed: string | undefined
    service.handOver = async (caseID, reason) => {
      if (!failed && mine.has(caseID)) {
        failed = caseID
        throw new Error('this one cannot be handed over now')
      }
      return handOver(caseID, reason)
    }
    try {
      server().clock.advance(60_000)
      await drain()
    } finally {
      service.handOver = handOver
    }
    const statuses = await Promise.all([...mine].map(async (id) => [id, await caseStatus(id)]))
    expect(statuses.filter(([id]) => id !== failed).map(([, status]) => status)).toEqual(['queued', 'queued'])
    expect(await caseStatus(failed as string)).toBe('bot')
    expect(server().logs.some((line) => line.includes('delivery: handover failed'))).toBe(true)
    // The next sweep takes it.
    server().clock.advance(1_000)
    await drain()
    expect(await caseStatus(failed as string)).toBe('queued')
  })
})
