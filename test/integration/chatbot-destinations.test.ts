import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config/config.js'
import { DestinationPolicy, parseAllowList } from '../../src/lib/destinations.js'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import { openCase } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { runCLI } from '../support/processes.js'

// SSRF: an organization's admin must not make Parley POST into the operator's network.

/** Private, local and odd spellings of them; WHATWG URL parsing turns the odd ones into addresses. */
const REFUSED = [
  'http://127.0.0.1/bot',
  'http://127.8.9.10:8080/bot',
  'http://localhost:8080/bot',
  'http://LOCALHOST./bot',
  'http://api.localhost/bot',
  'http://0x7f000001/bot',
  'http://2130706433/bot',
  'http://127.1/bot',
  'http://0177.0.0.1/bot',
  'http://[::1]/bot',
  'http://[::ffff:127.0.0.1]/bot',
  'http://[::ffff:a9fe:a9fe]/bot',
  'http://0.0.0.0/bot',
  'http://0/bot',
  'http://[::]/bot',
  'http://10.0.0.1/bot',
  'http://172.16.0.1/bot',
  'http://172.31.255.255/bot',
  'http://192.168.1.1/bot',
  'http://169.254.169.254/latest/meta-data',
  'http://[fe80::1]/bot',
  'http://[fd00:ec2::254]/bot',
  'http://[fc00::1]/bot',
  'http://100.64.0.1/bot',
  'http://100.127.255.254/bot',
  'http://224.0.0.1/bot',
  'http://[ff02::1]/bot',
  'http://255.255.255.255/bot',
]
const ALLOWED = [
  'https://bot.example.com/hook',
  'http://8.8.8.8/bot',
  'http://172.32.0.1/bot',
  'http://100.128.0.1/bot',
  'http://[2001:db8::1]/bot',
  'http://[::ffff:8.8.8.8]/bot',
]

describe('DestinationPolicy and CHATBOT_URL_ALLOW', () => {
  test('private, local, multicast and unspecified destinations are refused by default', () => {
    const policy = new DestinationPolicy()
    expect(REFUSED.filter((url) => policy.allowsURL(url))).toEqual([])
    expect(ALLOWED.filter((url) => !policy.allowsURL(url))).toEqual([])
  })

  test('the operator allows hosts, addresses and CIDRs', () => {
    const policy = new DestinationPolicy(parseAllowList(' 127.0.0.1, 10.1.0.0/16,localhost,fd00::/8 '))
    for (const url of [
      'http://127.0.0.1:9/',
      'http://2130706433/',
      'http://[::ffff:127.0.0.1]/',
      'http://10.1.200.3/',
      'http://localhost:1/',
      'http://[fd00:ec2::254]/',
    ])
      expect(policy.allowsURL(url)).toBe(true)
    for (const url of ['http://127.0.0.2/', 'http://10.2.0.1/', 'http://192.168.0.1/', 'http://[fc00::1]/'])
      expect(policy.allowsURL(url)).toBe(false)
    expect(policy.allowsAddress('10.1.0.7')).toBe(true)
    expect(policy.allowsAddress('10.3.0.7')).toBe(false)
  })

  test('a bad CHATBOT_URL_ALLOW is a startup error naming the variable', () => {
    for (const value of ['10.0.0.0/33', '10.0.0.0/8/1', 'http://x', '1.2.3.4/x', 'a b']) {
      expect(() => loadConfig({ CHATBOT_URL_ALLOW: value })).toThrow(ConfigError)
      expect(() => loadConfig({ CHATBOT_URL_ALLOW: value })).toThrow(
        /^Invalid configuration: CHATBOT_URL_ALLOW /,
      )
    }
    expect(loadConfig({}).chatbotURLAllow.entries).toEqual([])
  })
})

describeEachDatabase('chatbot destinations', (dialect) => {
  // Nothing private allowed, as by default (the test support allows 127.0.0.1 for its bots).
  const server = useServer(dialect, { CHATBOT_URL_ALLOW: '' })
  let bot: Awaited<ReturnType<typeof startBot>>

  beforeAll(async () => {
    bot = await startBot()
  })
  afterAll(async () => {
    await bot.close()
  })

  test('the admin API refuses private URLs at create and update: 400/40002, field url', async () => {
    const org = await createOrganization(server(), 'SSRF')
    const { call } = await signInAgent(server(), org.organizationID, 'ssrf-admin@example.com', {
      role: 'admin',
    })
    const refusal = {
      code: '40002',
      message: "Param 'url' points to a private or local address (see CHATBOT_URL_ALLOW)",
      field: 'url',
    }
    const replies = await Promise.all(
      REFUSED.map((url) => call('/admin/chatbot/create', { name: 'Evil', url })),
    )
    expect(replies.map((r) => r.status)).toEqual(REFUSED.map(() => 400))
    for (const reply of replies) expect(reply.json.error).toEqual(refusal)

    const created = await call('/admin/chatbot/create', { name: 'Fine', url: 'https://bot.example.com/hook' })
    expect(created.status).toBe(200)
    const update = await call('/admin/chatbot/update', {
      chatbotID: created.json.data.chatbotID,
      url: 'http://169.254.169.254/latest',
    })
    expect(update.status).toBe(400)
    expect(update.json.error).toEqual(refusal)
  })

  test('the CLI refuses them too, and accepts them once the operator allows the address', async () => {
    const org = await createOrganization(server(), 'CLI SSRF')
    const env = { ...server().testDatabase.env, CHATBOT_URL_ALLOW: '' }
    const args = [
      'chatbot',
      'create',
      '--org',
      org.organizationID,
      '--name',
      'B',
      '--url',
      'http://0x7f000001:1/',
    ]
    const refused = await runCLI(args, env)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("Param 'url' points to a private or local address")
    const allowed = await runCLI([...args, '--json'], { ...env, CHATBOT_URL_ALLOW: '127.0.0.0/8' })
    expect(allowed.code).toBe(0)
    expect(JSON.parse(allowed.stdout).url).toBe('http://0x7f000001:1/')
  })

  /**
   * A chatbot whose stored URL leads to `url` at delivery time: saved before this check existed,
   * or a name that resolved elsewhere when it was saved (DNS rebinding).
   */
  async function caseFor(url: string, name: string) {
    const org = await createOrganization(server(), name)
    const chatbot = await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Bot',
      url: 'https://bot.example.com/hook',
    })
    await server()
      .testDatabase.database.db.updateTable('chatbots')
      .set({ url })
      .where('id', '=', chatbot.chatbotID)
      .execute()
    // Past the chatbot cache's second, so the worker reads the stored URL.
    server().clock.advance(2000)
    const visitor = await org.signIn(`visitor-${name}`)
    return openCase(visitor, 'hello')
  }

  const deliveriesOf = (caseID: string) =>
    server()
      .testDatabase.database.db.selectFrom('deliveries')
      .select(['status', 'last_error'])
      .where('case_id', '=', caseID)
      .execute()

  test('at connect time a refused destination is never contacted and fails the delivery for good', async () => {
    const port = new URL(bot.url).port
    const literal = await caseFor(bot.url, 'literal')
    // `localhost` passes no address check by name: it is resolved when connecting, and refused.
    const named = await caseFor(`http://localhost:${port}/bot`, 'named')
    await server().app.delivery.drain()
    expect(bot.requests).toHaveLength(0)
    expect(await deliveriesOf(literal.caseID)).toEqual([
      { status: 'failed', last_error: 'destination 127.0.0.1 is not allowed' },
    ])
    const [delivery] = await deliveriesOf(named.caseID)
    expect(delivery).toMatchObject({
      status: 'failed',
      last_error: expect.stringMatching(/^destination .* is not allowed$/),
    })
    // Failed for good: the case went to agents at once.
    for (const { caseID } of [literal, named]) {
      const row = await server()
        .testDatabase.database.db.selectFrom('cases')
        .select('status')
        .where('id', '=', caseID)
        .executeTakeFirstOrThrow()
      expect(row.status).toBe('queued')
    }
  })
})

describeEachDatabase('chatbot destinations the operator allows', (dialect) => {
  const server = useServer(dialect, { CHATBOT_URL_ALLOW: 'localhost,127.0.0.1,::1' })

  test('a bot on an allowed name is delivered to', async () => {
    const bot = await startBot()
    try {
      const org = await createOrganization(server(), 'Allowed')
      await server().app.services.chatbots.create(operator, org.organizationID, {
        name: 'Bot',
        url: `http://localhost:${new URL(bot.url).port}/bot`,
      })
      await openCase(await org.signIn('visitor-allowed'), 'hello')
      await server().app.delivery.drain()
      expect(bot.requests.map((r) => r.json.message.text.body)).toEqual(['hello'])
    } finally {
      await bot.close()
    }
  })
})
