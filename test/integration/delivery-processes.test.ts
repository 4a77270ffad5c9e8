import { afterEach, describe, expect, test } from 'vitest'
import { send } from '../support/app.js'
import { type BotRequest, startBot } from '../support/bot-server.js'
import {
  createTestDatabase,
  describeEachDatabase,
  postgresURL,
  type TestDatabase,
} from '../support/databases.js'
import { validTicketRequest } from '../support/fixtures.js'
import { eventually } from '../support/poll.js'
import { runCLIJSON, type ServerProcess, startServerProcess } from '../support/processes.js'

// Delivery across real server processes: one killed mid-way and restarted, and two sharing one
// PostgreSQL outbox. These wait for real retries and leases (seconds), not for an injected clock.

/** Signs visitors in through `instance`, opens a case each and writes `messages` more in it. */
async function visitorsWrite(instance: ServerProcess, serverKey: string, visitors: number, messages: number) {
  const post = (path: string, headers: Record<string, string>, body?: unknown) =>
    send(`${instance.url}${path}`, {
      method: 'POST',
      headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
  const expected: string[][] = []
  for (let v = 0; v < visitors; v++) {
    const ticket = await post(
      '/v1/server/auth_ticket/request',
      { 'server-key': serverKey },
      validTicketRequest({ xcUserID: `v-${v}` }),
    )
    const tokens = await post('/v1/auth/access_token/request', {
      authorization: `Bearer ${ticket.json.data.ticket}`,
    })
    const auth = { authorization: `Bearer ${tokens.json.data.accessToken}` }
    const opened = await post('/api/visitor/v1/client/case/create', auth, { message: `v${v} m0` })
    const bodies = [`v${v} m0`]
    for (let m = 1; m <= messages; m++) {
      const body = `v${v} m${m}`
      const reply = await post('/api/visitor/v1/client/case/send_message', auth, {
        id: opened.json.data.case.caseID,
        localID: body,
        messageType: 'text',
        text: { body },
      })
      expect(reply.status).toBe(200)
      bodies.push(body)
    }
    expected.push(bodies)
  }
  return expected
}

/** Each case's message bodies in the order the bot first received them. */
function receivedInOrder(requests: BotRequest[]): Map<string, string[]> {
  const seen = new Set<string>()
  const byCase = new Map<string, string[]>()
  for (const { json } of requests) {
    if (seen.has(json.message.id)) continue
    seen.add(json.message.id)
    byCase.set(json.caseID, [...(byCase.get(json.caseID) ?? []), json.message.text.body])
  }
  return byCase
}

const processes: ServerProcess[] = []
const databases: TestDatabase[] = []
afterEach(async () => {
  for (const p of processes.splice(0)) {
    p.child.kill('SIGKILL')
    await p.exited
  }
  for (const d of databases.splice(0)) await d.drop()
})

async function start(env: Record<string, string>) {
  const instance = await startServerProcess(env)
  processes.push(instance)
  return instance
}

describeEachDatabase('delivery across processes', (dialect) => {
  test('a server killed (SIGKILL) mid-way loses no delivery; a duplicate keeps its webhook-id', async () => {
    // The bot fails the first 15 requests, so deliveries are being retried when the server dies.
    const bot = await startBot((_request, index) => (index < 15 ? 503 : 200))
    const testDatabase = await createTestDatabase(dialect)
    databases.push(testDatabase)
    const env = {
      ...(testDatabase.env as Record<string, string>),
      DELIVERY_TIMEOUT: '1',
      BOT_HANDOVER_AFTER: '3600',
    }
    try {
      const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Crashy'], env)
      const { serverKey } = await runCLIJSON(['server-key', 'create', '--org', organizationID], env)
      await runCLIJSON(['chatbot', 'create', '--org', organizationID, '--name', 'Bot', '--url', bot.url], env)

      const first = await start(env)
      const expected = await visitorsWrite(first, serverKey, 5, 5)
      await eventually(() => bot.requests.length >= 10, 'the first attempts', 10_000, 50)
      first.child.kill('SIGKILL')
      await first.exited

      await start(env)
      const total = expected.flat().length
      await eventually(
        () => new Set(bot.requests.map((r) => r.json.message.id)).size === total,
        'every message',
        30_000,
        50,
      )

      const byCase = receivedInOrder(bot.requests)
      expect([...byCase.values()].sort()).toEqual([...expected].sort())
      // Every repeat of a message carried the same webhook-id.
      const idsPerMessage = new Map<string, Set<string>>()
      for (const { json, headers } of bot.requests) {
        idsPerMessage.set(
          json.message.id,
          (idsPerMessage.get(json.message.id) ?? new Set()).add(headers['webhook-id'] as string),
        )
      }
      expect([...idsPerMessage.values()].every((ids) => ids.size === 1)).toBe(true)
    } finally {
      await bot.close()
    }
  }, 90_000) // server processes started, killed and started again; 10 s alone, three times that on a busy machine
})

describe.skipIf(!postgresURL)('two instances share one PostgreSQL outbox', () => {
  test('200 deliveries over 20 cases: each delivered once, in order per case', async () => {
    // The bot is down (503) while the outbox fills, then comes up for both instances at once.
    let up = false
    const bot = await startBot(() => (up ? 200 : 503))
    const testDatabase = await createTestDatabase('postgres')
    databases.push(testDatabase)
    const env = {
      ...(testDatabase.env as Record<string, string>),
      DELIVERY_TIMEOUT: '2',
      BOT_HANDOVER_AFTER: '3600',
    }
    try {
      const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Twins'], env)
      const { serverKey } = await runCLIJSON(['server-key', 'create', '--org', organizationID], env)
      await runCLIJSON(['chatbot', 'create', '--org', organizationID, '--name', 'Bot', '--url', bot.url], env)
      const [a, b] = await Promise.all([start(env), start(env)])
      const expected = await visitorsWrite(a, serverKey, 20, 9)
      expect(expected.flat()).toHaveLength(200)
      const failedAttempts = bot.requests.length
      up = true

      await eventually(() => bot.requests.length - failedAttempts >= 200, '200 deliveries', 30_000, 50)
      const accepted = bot.requests.slice(failedAttempts)
      const ids = accepted.map((r) => r.headers['webhook-id'])
      expect(new Set(ids).size).toBe(ids.length) // once each
      expect(accepted).toHaveLength(200)
      const byCase = receivedInOrder(accepted)
      expect([...byCase.values()].sort()).toEqual([...expected].sort())
      void b
    } finally {
      await bot.close()
    }
    // Two instances, three CLI runs and 200 messages before the wait itself (30 s) begins: on a
    // busy machine that alone took 10 s.
  }, 90_000)
})
