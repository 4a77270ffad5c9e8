import { afterEach, describe, expect, test } from 'vitest'
import { send } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import {
  createTestDatabase,
  describeEachDatabase,
  postgresURL,
  type TestDatabase,
} from '../support/databases.js'
import { validTicketRequest } from '../support/fixtures.js'
import { eventually } from '../support/poll.js'
import { runCLIJSON, type ServerProcess, startServerProcess } from '../support/processes.js'

// Events across a killed server process: every event arrives, each under one webhook-id however
// often it is sent, in the order of the changes (per endpoint). Real retries and leases (seconds).

const processes: ServerProcess[] = []
const databases: TestDatabase[] = []
afterEach(async () => {
  for (const p of processes.splice(0)) {
    p.child.kill('SIGKILL')
    await p.exited
  }
  for (const d of databases.splice(0)) await d.drop()
})

describeEachDatabase('events across processes', (dialect) => {
  test('a server killed (SIGKILL) mid-way loses no event; each keeps one webhook-id, in order', async () => {
    // The backend fails its first 2 requests (one endpoint's events go one at a time, so its
    // retries hold up the rest), then takes them: the server dies while they stream.
    const backend = await startBot((_request, index) => (index < 2 ? 503 : 200))
    const testDatabase = await createTestDatabase(dialect)
    databases.push(testDatabase)
    const env = { ...(testDatabase.env as Record<string, string>), DELIVERY_TIMEOUT: '1' }
    try {
      const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Crashy'], env)
      const { serverKey } = await runCLIJSON(['server-key', 'create', '--org', organizationID], env)
      await runCLIJSON(
        [
          'event-endpoint',
          'create',
          '--org',
          organizationID,
          '--url',
          backend.url,
          '--events',
          'user.created',
        ],
        env,
      )
      const first = await startServerProcess(env)
      processes.push(first)
      const users = Array.from({ length: 20 }, (_, n) => `user-${n}`)
      for (const xcUserID of users) {
        const ticket = await send(`${first.url}/v1/server/auth_ticket/request`, {
          method: 'POST',
          headers: { 'server-key': serverKey, 'content-type': 'application/json' },
          body: JSON.stringify(validTicketRequest({ xcUserID })),
        })
        expect(ticket.status).toBe(200)
      }
      await eventually(() => backend.requests.length >= 8, 'the first attempts', 15_000, 50)
      first.child.kill('SIGKILL')
      await first.exited

      processes.push(await startServerProcess(env))
      const userOf = (json: { data: { user: { xcUserID: string } } }) => json.data.user.xcUserID
      await eventually(
        () => new Set(backend.requests.map((r) => userOf(r.json))).size === users.length,
        'every event',
        30_000,
        50,
      )
      // In order: the first receipt of each event follows the order the users were created in.
      const firsts: string[] = []
      for (const { json } of backend.requests) if (!firsts.includes(userOf(json))) firsts.push(userOf(json))
      expect(firsts).toEqual(users)
      // One webhook-id per event, however often it was sent.
      const ids = new Map<string, Set<string>>()
      for (const { json, headers } of backend.requests)
        ids.set(userOf(json), (ids.get(userOf(json)) ?? new Set()).add(headers['webhook-id'] as string))
      expect([...ids.values()].every((set) => set.size === 1)).toBe(true)
      expect(new Set([...ids.values()].map((set) => [...set][0])).size).toBe(users.length)
    } finally {
      await backend.close()
    }
  }, 90_000)
})

describe.skipIf(!postgresURL)('two instances share one endpoint on PostgreSQL', () => {
  test('a backlog longer than a chain goes out once each, in order, whichever instance sends it', async () => {
    // The backend is down (503) while 260 events pile up (more than one claim's 200: chains
    // follow one another), then comes up for both instances at once.
    let up = false
    const backend = await startBot(() => (up ? 200 : 503))
    const testDatabase = await createTestDatabase('postgres')
    databases.push(testDatabase)
    const env = { ...(testDatabase.env as Record<string, string>), DELIVERY_TIMEOUT: '2' }
    try {
      const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Twins'], env)
      const { serverKey } = await runCLIJSON(['server-key', 'create', '--org', organizationID], env)
      const created = ['--org', organizationID, '--url', backend.url, '--events', 'user.created']
      await runCLIJSON(['event-endpoint', 'create', ...created], env)
      const instances = await Promise.all([startServerProcess(env), startServerProcess(env)])
      processes.push(...instances)
      const users = Array.from({ length: 260 }, (_, n) => `twin-${n}`)
      for (const [n, xcUserID] of users.entries()) {
        const ticket = await send(`${instances[n % 2]?.url}/v1/server/auth_ticket/request`, {
          method: 'POST',
          headers: { 'server-key': serverKey, 'content-type': 'application/json' },
          body: JSON.stringify(validTicketRequest({ xcUserID })),
        })
        expect(ticket.status).toBe(200)
      }
      const refused = backend.requests.length
      up = true
      await eventually(() => backend.requests.length - refused >= users.length, 'every event', 45_000, 50)
      const accepted = backend.requests.slice(refused)
      const ids = accepted.map((r) => r.headers['webhook-id'])
      expect(new Set(ids).size).toBe(ids.length) // once each
      expect(accepted.map((r) => r.json.data.user.xcUserID)).toEqual(users) // in order
    } finally {
      await backend.close()
    }
  }, 120_000)
})
