import { randomInt } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { LOGIN_ATTEMPTS_PER_MINUTE } from '../../src/api/agent/index.js'
import { FAILED_LOGINS_PER_ADDRESS_PER_MINUTE as MAX } from '../../src/api/agent/login-limit.js'
import { PASSWORD_HASH_CONCURRENCY, passwordHashing } from '../../src/lib/passwords.js'
import { AGENT_PASSWORD } from '../support/agents.js'
import { type Reply, startServer, stopServer, type TestServer, useServer } from '../support/app.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'

const LOGIN = '/api/agent/v1/auth/login'
// Each test signs in from addresses of its own (believed through X-Forwarded-For), so counters
// of other tests, or of other runs sharing Redis, are never in the way.
const TRUST = { TRUST_PROXY: 'true' }
const newAddress = () => `198.18.${randomInt(256)}.${randomInt(1, 255)}`

const login = (server: TestServer, address: string, email: string, password = 'wrong password') =>
  server.post(LOGIN, { email, password }, { 'x-forwarded-for': address })

/** `count` logins at once from `address`, each to an account that does not exist. */
const spray = (server: TestServer, address: string, count: number, from = 0) =>
  Promise.all(
    Array.from({ length: count }, (_, i) => login(server, address, `nobody-${from + i}@example.com`)),
  )

const statuses = (replies: Reply[]) => {
  const tally: Record<number, number> = {}
  for (const { status } of replies) tally[status] = (tally[status] ?? 0) + 1
  return tally
}

describeEachDatabase('agent login limits', (dialect) => {
  const server = useServer(dialect, TRUST)
  let email: string

  beforeAll(async () => {
    const org = await server().app.services.organizations.create(operator, 'Sprayed')
    email = 'real@example.com'
    await server().app.services.agents.create(operator, org.organizationID, {
      email,
      fullName: 'Real',
      role: 'agent',
      password: AGENT_PASSWORD,
    })
  })

  test('one address trying many accounts at once is cut off after the per-address limit, before hashing', async () => {
    const address = newAddress()
    const replies = await spray(server(), address, MAX + 10)
    expect(statuses(replies)).toEqual({ 401: MAX, 429: 10 })
    const limited = replies.find((r) => r.status === 429) as Reply
    expect(limited.json.error).toEqual({
      code: '42900',
      message: 'too many failed sign-ins from this address; try again later',
      field: '',
    })
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    // Never more hashes at once than the limit allows, and a refused attempt hashes nothing.
    expect(passwordHashing.peak).toBeLessThanOrEqual(PASSWORD_HASH_CONCURRENCY)
    const hashed = passwordHashing.started
    expect(statuses(await spray(server(), address, 10, 100))).toEqual({ 429: 10 })
    expect(passwordHashing.started).toBe(hashed)

    // The right password from that address waits too; from another address it works.
    expect((await login(server(), address, email, AGENT_PASSWORD)).status).toBe(429)
    expect((await login(server(), newAddress(), email, AGENT_PASSWORD)).status).toBe(200)
    // A minute later the address may try again.
    server().clock.advance(60_000)
    expect((await login(server(), address, email, AGENT_PASSWORD)).status).toBe(200)
  }, 90_000) // MAX failed password checks and two sign-ins (scrypt, two at a time): near 30 s beside a CPU-bound process

  test('successful logins do not use up the address’s allowance', async () => {
    server().clock.advance(60_000)
    const address = newAddress()
    expect(statuses(await spray(server(), address, MAX - 1))).toEqual({ 401: MAX - 1 })
    const good = await Promise.all(
      Array.from({ length: LOGIN_ATTEMPTS_PER_MINUTE - 1 }, () =>
        login(server(), address, email, AGENT_PASSWORD),
      ),
    )
    expect(statuses(good)).toEqual({ 200: LOGIN_ATTEMPTS_PER_MINUTE - 1 })
    expect((await login(server(), address, 'last-try@example.com')).status).toBe(401)
    expect((await login(server(), address, 'one-too-many@example.com')).status).toBe(429)
  }, 90_000) // MAX - 1 failed password checks and as many sign-ins (scrypt, two at a time)
})

describe.skipIf(!process.env.REDIS_URL)('agent login limits across instances (Redis)', () => {
  let servers: TestServer[] = []

  beforeAll(async () => {
    const env = { ...TRUST, REDIS_URL: process.env.REDIS_URL as string }
    servers = [await startServer('sqlite', env), await startServer('sqlite', env)]
    const [first, second] = servers as [TestServer, TestServer]
    // Both instances in the same minute.
    second.clock.advance(first.clock.now() - second.clock.now())
  })
  afterAll(async () => {
    await Promise.all(servers.map((s) => stopServer(s)))
  })

  test('failures at two instances count together', async () => {
    const address = newAddress()
    const half = (MAX + 10) / 2
    const replies = (
      await Promise.all(servers.map((server, i) => spray(server, address, half, i * 1000)))
    ).flat()
    expect(statuses(replies)).toEqual({ 401: MAX, 429: 10 })
  })
})
