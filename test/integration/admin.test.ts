import { beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator, validTicketRequest } from '../support/fixtures.js'

describeEachDatabase('admin API', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let admin: (path: string, body?: unknown) => ReturnType<ReturnType<typeof server>['post']>
  let agent: typeof admin

  beforeAll(async () => {
    org = await createOrganization(server(), 'Admins')
    const signIn = async (email: string, role: string) => {
      const { call } = await signInAgent(server(), org.organizationID, email, { role })
      return (path: string, body: unknown = {}) => call(`/admin${path}`, body)
    }
    admin = await signIn('root@example.com', 'admin')
    agent = await signIn('plain@example.com', 'agent')
  })

  test('agents cannot use it', async () => {
    for (const path of ['/server_key/list', '/chatbot/list', '/audit_log/list']) {
      expect((await agent(path)).json.error).toMatchObject({ code: '40301', message: 'admins only' })
    }
  })

  test('server keys: created (secret once), listed without secrets, revoked', async () => {
    const created = (await admin('/server_key/create')).json.data
    expect(created.serverKeySecret).toMatch(/^[\w-]{43}$/)
    const { serverKeys } = (await admin('/server_key/list')).json.data
    expect(JSON.stringify(serverKeys)).not.toContain(created.serverKeySecret)
    const ticket = () =>
      server().post('/v1/server/auth_ticket/request', validTicketRequest(), {
        'server-key': created.serverKey,
      })
    expect((await ticket()).status).toBe(200)
    expect((await admin('/server_key/revoke', { serverKeyID: created.serverKeyID })).status).toBe(200)
    expect((await ticket()).json.error.code).toBe('40001')
    // Another organization's key does not exist here.
    const theirs = await createOrganization(server(), 'Key owners')
    expect((await admin('/server_key/revoke', { serverKeyID: theirs.serverKeyID })).json.error.code).toBe(
      '40401',
    )
    const stillWorks = await server().post('/v1/server/auth_ticket/request', validTicketRequest(), {
      'server-key': theirs.serverKey,
    })
    expect(stillWorks.status).toBe(200)
  })

  test('chatbots: create, details with secret and webhook URL, update, rotate, deactivate', async () => {
    const created = (await admin('/chatbot/create', { name: 'Helper', url: 'https://bot.example.com/hook' }))
      .json.data
    expect(created).toMatchObject({
      active: true,
      secretKey: expect.stringMatching(/^whsec_/),
      webhookURL: expect.stringContaining(created.chatbotID),
    })
    expect((await admin('/chatbot/get', { chatbotID: created.chatbotID })).json.data.secretKey).toBe(
      created.secretKey,
    )
    expect(
      (await admin('/chatbot/update', { chatbotID: created.chatbotID, name: 'Helper 2' })).json.data.name,
    ).toBe('Helper 2')
    expect(
      (await admin('/chatbot/update', { chatbotID: created.chatbotID, url: 'ftp://x' })).json.error,
    ).toMatchObject({ code: '40002', field: 'url' })
    expect(
      (await admin('/chatbot/rotate_secret', { chatbotID: created.chatbotID })).json.data.secretKey,
    ).not.toBe(created.secretKey)
    expect((await admin('/chatbot/deactivate', { chatbotID: created.chatbotID })).json.data.active).toBe(
      false,
    )
    const foreign = await server().app.services.chatbots.create(
      operator,
      (await createOrganization(server(), 'Theirs')).organizationID,
      {
        name: 'Theirs',
        url: 'https://their.example.com',
      },
    )
    expect((await admin('/chatbot/get', { chatbotID: foreign.chatbotID })).json.error.code).toBe('40401')
  })

  test('topics and agents, and every change in the audit log without secrets', async () => {
    expect((await admin('/topic/create', { name: 'Returns' })).json.data).toMatchObject({ name: 'Returns' })
    const created = (
      await admin('/agent/create', {
        email: 'new@example.com',
        fullName: 'New',
        role: 'agent',
        password: 'a good passphrase',
      })
    ).json.data
    expect(created).toMatchObject({ email: 'new@example.com', role: 'agent' })
    expect((await admin('/agent/list')).json.data.agents.map((a: { email: string }) => a.email)).toContain(
      'new@example.com',
    )
    // An address taken anywhere (here: concurrently) is refused the same way, never with a 500.
    const racing = await Promise.all(
      Array.from({ length: 5 }, () =>
        admin('/agent/create', {
          email: 'race@example.com',
          fullName: 'R',
          role: 'agent',
          password: 'a good passphrase',
        }),
      ),
    )
    expect(racing.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409])
    expect(racing.find((r) => r.status === 409)?.json.error.message).toBe('email is not available')

    const { entries } = (await admin('/audit_log/list')).json.data
    const actions = entries.map((e: { action: string }) => e.action)
    for (const action of [
      'server_key.create',
      'server_key.revoke',
      'chatbot.create',
      'chatbot.show_secret',
      'chatbot.rotate_secret',
      'chatbot.deactivate',
      'topic.create',
      'agent.create',
    ]) {
      expect(actions).toContain(action)
    }
    expect(entries[0]).toMatchObject({
      action: 'agent.create',
      agentAccountID: expect.any(String),
      created: expect.any(Number),
    })
    const log = JSON.stringify(entries)
    expect(log).not.toContain('a good passphrase')
    expect(log).not.toContain('whsec_')
  })

  test("agents are edited: name, role, topics and maximum; another organization's do not exist", async () => {
    const created = (
      await admin('/agent/create', {
        email: 'edit@example.com',
        fullName: 'Ed',
        role: 'agent',
        password: 'a good passphrase',
      })
    ).json.data
    const returns = (await admin('/topic/create', { name: 'Edits' })).json.data.topicID
    const edited = await admin('/agent/update', {
      agentAccountID: created.agentAccountID,
      fullName: 'Edward',
      role: 'admin',
      topics: [returns],
      maxConcurrentCases: 9,
    })
    expect(edited.json.data).toMatchObject({
      fullName: 'Edward',
      role: 'admin',
      topics: [returns],
      maxConcurrentCases: 9,
    })
    expect(
      (await admin('/agent/update', { agentAccountID: created.agentAccountID, topics: [999999] })).json.error
        .code,
    ).toBe('40401')
    const theirs = await server().app.services.agents.create(
      operator,
      (await createOrganization(server(), 'Editors')).organizationID,
      {
        email: 'theirs@example.com',
        fullName: 'T',
        role: 'agent',
        password: 'a good passphrase',
      },
    )
    expect(
      (await admin('/agent/update', { agentAccountID: theirs.agentAccountID, fullName: 'Hacked' })).json.error
        .code,
    ).toBe('40401')
    const { entries } = (await admin('/audit_log/list', { limit: 5 })).json.data
    expect(entries.map((e: { action: string }) => e.action)).toContain('agent.update')
  })

  test('an organization keeps an admin: two admins demoting each other at once, one wins', async () => {
    const solo = await createOrganization(server(), 'Pair')
    const [first, second] = await Promise.all(
      ['one@pair.example', 'two@pair.example'].map((email) =>
        signInAgent(server(), solo.organizationID, email, { role: 'admin' }),
      ),
    )
    if (!first || !second) throw new Error('sign-in failed')
    const demote = (by: typeof first, whom: typeof first) =>
      by.call('/admin/agent/update', { agentAccountID: whom.id, role: 'agent' })
    const replies = await Promise.all([demote(first, second), demote(second, first)])
    // The other is refused: 409 when both were admins as their requests began (the locks decide),
    // 403 when one request began after the other had demoted its admin (a busy machine serves
    // them one after the other).
    const [won, lost] = [...replies].sort((a, b) => a.status - b.status)
    expect(won?.status).toBe(200)
    expect([403, 409]).toContain(lost?.status)
    expect(lost?.json.error).toMatchObject(
      lost?.status === 409
        ? { code: '40901', message: 'an organization keeps at least one admin' }
        : { code: '40301' },
    )
    const admins = (await server().app.services.agents.list(solo.organizationID)).filter(
      (a) => a.role === 'admin',
    )
    expect(admins).toHaveLength(1)
    // The last admin cannot step down either.
    const last = admins[0]?.agentAccountID === first.id ? first : second
    expect((await demote(last, last)).status).toBe(409)
  })
})
