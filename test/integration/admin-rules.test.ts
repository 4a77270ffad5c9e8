import { afterAll, beforeAll, expect, test } from 'vitest'
import { commands } from '../../src/cli/commands.js'
import { type Actor, agentActor } from '../../src/domain/audit/actor.js'
import { ManualClock } from '../../src/lib/clock.js'
import { createServices, type Services } from '../../src/services.js'
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../support/databases.js'
import { testFileStorage } from '../support/files.js'
import { operator } from '../support/fixtures.js'

// The admin rules live in the services, so they hold for every caller: here the services are
// called directly, with no HTTP route in front of them.
describeEachDatabase('admin rules in the services', (dialect) => {
  let testDatabase: TestDatabase
  let services: Services
  let ours: string
  let theirs: {
    organizationID: string
    serverKeyID: string
    appKeyID: string
    chatbotID: string
    agentAccountID: string
  }
  let admin: Actor
  let plainAgent: Actor

  beforeAll(async () => {
    testDatabase = await createTestDatabase(dialect)
    // As buildApp does: the services issue IDs under a worker number leased from the database.
    await testDatabase.database.ids.lease()
    services = createServices({
      database: testDatabase.database,
      clock: new ManualClock(Date.now()),
      masterKey: testDatabase.masterKey,
      publicURL: 'http://parley.test',
      files: testFileStorage(testDatabase.dataDir),
    })
    ours = (await services.organizations.create(operator, 'Ours')).organizationID
    const account = (role: string) =>
      services.agents.create(operator, ours, {
        email: `${role}@ours.example`,
        fullName: role,
        role,
        password: 'a good passphrase',
      })
    admin = agentActor({ ...(await account('admin')), role: 'admin' })
    plainAgent = agentActor({ ...(await account('agent')), role: 'agent' })
    const { organizationID } = await services.organizations.create(operator, 'Theirs')
    theirs = {
      organizationID,
      serverKeyID: (await services.serverKeys.create(operator, organizationID)).serverKeyID,
      appKeyID: (await services.appKeys.create(operator, organizationID)).appKeyID,
      chatbotID: (
        await services.chatbots.create(operator, organizationID, { name: 'Bot', url: 'https://bot.example' })
      ).chatbotID,
      agentAccountID: (
        await services.agents.create(operator, organizationID, {
          email: 'someone@theirs.example',
          fullName: 'Someone',
          role: 'agent',
          password: 'a good passphrase',
        })
      ).agentAccountID,
    }
  })
  afterAll(async () => {
    await testDatabase.drop()
  })

  /** Every admin call of the services, aimed at the other organization or its things. */
  const callsOnTheirs = (actor: Actor) => {
    const { organizationID: org, serverKeyID, appKeyID, chatbotID, agentAccountID } = theirs
    const { serverKeys, appKeys, chatbots, topics, agents, audit } = services
    const agentInput = { email: 'new@theirs.example', fullName: 'N', role: 'agent', password: 'a passphrase' }
    return {
      'serverKeys.create': () => serverKeys.create(actor, org),
      'serverKeys.list': () => serverKeys.list(actor, org),
      'serverKeys.revoke': () => serverKeys.revoke(actor, serverKeyID),
      'appKeys.create': () => appKeys.create(actor, org),
      'appKeys.list': () => appKeys.list(actor, org),
      'appKeys.revoke': () => appKeys.revoke(actor, appKeyID),
      'chatbots.create': () => chatbots.create(actor, org, { name: 'X', url: 'https://x.example' }),
      'chatbots.list': () => chatbots.list(actor, org),
      'chatbots.showSecret': () => chatbots.showSecret(actor, chatbotID),
      'chatbots.update': () => chatbots.update(actor, chatbotID, { name: 'Hijacked' }),
      'chatbots.rotateSecret': () => chatbots.rotateSecret(actor, chatbotID),
      'chatbots.activate': () => chatbots.activate(actor, chatbotID),
      'chatbots.deactivate': () => chatbots.deactivate(actor, chatbotID),
      'topics.create': () => topics.create(actor, org, 'Hijacked'),
      'agents.create': () => agents.create(actor, org, agentInput),
      'agents.update': () => agents.update(actor, agentAccountID, { fullName: 'Hijacked' }),
      'agents.deactivate': () => agents.deactivate(actor, agentAccountID),
      'agents.reactivate': () => agents.reactivate(actor, agentAccountID),
      'agents.setPassword': () => agents.setPassword(actor, agentAccountID, 'another passphrase'),
      'audit.list': () => audit.list(actor, org, 10),
    }
  }

  /** What the other organization has, as its admins would see it. */
  const theirState = async () => {
    const { organizationID: org, agentAccountID } = theirs
    return {
      serverKeys: await services.serverKeys.list(operator, org),
      appKeys: await services.appKeys.list(operator, org),
      chatbots: await services.chatbots.list(operator, org),
      secret: (await services.chatbots.show(theirs.chatbotID)).secretKey,
      topics: await services.topics.list(org),
      agents: await services.agents.list(org),
      agent: await services.agents.get(agentAccountID),
      audit: await services.audit.list(operator, org, 100),
    }
  }

  test("another organization's things do not exist for an admin (notFound), and nothing changes", async () => {
    const before = await theirState()
    for (const [name, call] of Object.entries(callsOnTheirs(admin))) {
      await expect(call(), name).rejects.toMatchObject({ kind: 'notFound', message: /not found$/ })
    }
    expect(await theirState()).toEqual(before)
  })

  test('an agent who is not an admin is refused (forbidden) before anything is looked up', async () => {
    const before = await theirState()
    for (const [name, call] of Object.entries(callsOnTheirs(plainAgent))) {
      await expect(call(), name).rejects.toMatchObject({ kind: 'forbidden', message: 'admins only' })
    }
    // Their own organization's things, and things that do not exist at all, answer the same.
    const nobody = '1'
    const own = [
      () => services.topics.create(plainAgent, ours, 'Mine'),
      () => services.chatbots.list(plainAgent, ours),
      () => services.chatbots.update(plainAgent, nobody, { name: 'X' }),
      () => services.agents.setPassword(plainAgent, nobody, 'another passphrase'),
      () => services.serverKeys.revoke(plainAgent, nobody),
    ]
    for (const call of own) await expect(call()).rejects.toMatchObject({ kind: 'forbidden' })
    expect(await theirState()).toEqual(before)
  })

  test("an admin's own organization's changes are made and audited under the admin's name", async () => {
    const chatbot = await services.chatbots.create(admin, ours, { name: 'Ours', url: 'https://ours.example' })
    await services.chatbots.update(admin, chatbot.chatbotID, { name: 'Ours 2' })
    const [latest] = await services.audit.list(admin, ours, 1)
    expect(latest).toMatchObject({
      actor: `agent:${(admin as { agentAccountID: string }).agentAccountID}`,
      action: 'chatbot.update',
      detail: { chatbotID: chatbot.chatbotID, name: 'Ours 2', url: 'https://ours.example' },
    })
  })

  test('every change command of the CLI leaves one audit entry, made by the operator', async () => {
    const context = { services, actor: { kind: 'cli', user: 'ops' } as Actor }
    const run = (name: string, options: Record<string, string>, input = '') => {
      const command = commands[name]
      if (!command) throw new Error(`no command ${name}`)
      return command.run(context, options, input) as Promise<Record<string, string>>
    }
    const ids: Record<string, string> = await run('org create', { name: 'Operated' })
    const known = (key: string) => ids[key] ?? ''
    const org = known('organizationID')
    const id = (key: string) => () => ({ id: known(key) })
    const steps: [string, () => Record<string, string>, string][] = [
      ['server-key create', () => ({ org }), 'server_key.create'],
      ['server-key revoke', id('serverKeyID'), 'server_key.revoke'],
      ['app-key create', () => ({ org }), 'app_key.create'],
      ['app-key revoke', id('appKeyID'), 'app_key.revoke'],
      ['topic create', () => ({ org, name: 'Billing' }), 'topic.create'],
      ['chatbot create', () => ({ org, name: 'Bot', url: 'https://bot.example' }), 'chatbot.create'],
      ['chatbot show', id('chatbotID'), 'chatbot.show_secret'],
      ['chatbot rotate-secret', id('chatbotID'), 'chatbot.rotate_secret'],
      ['chatbot deactivate', id('chatbotID'), 'chatbot.deactivate'],
      ['chatbot activate', id('chatbotID'), 'chatbot.activate'],
      [
        'agent create',
        () => ({ org, email: 'a@operated.example', name: 'A', role: 'agent' }),
        'agent.create',
      ],
      ['agent deactivate', id('agentAccountID'), 'agent.deactivate'],
      ['agent reactivate', id('agentAccountID'), 'agent.reactivate'],
      ['agent set-password', id('agentAccountID'), 'agent.set_password'],
      ['chatbot case-events', () => ({ id: known('chatbotID'), events: 'on' }), 'chatbot.update'],
      ['chatbot message-edits', () => ({ id: known('chatbotID'), events: 'on' }), 'chatbot.update'],
      [
        'event-endpoint create',
        () => ({ org, url: 'https://events.example', events: 'user.created' }),
        'event_endpoint.create',
      ],
      ['event-endpoint show', id('endpointID'), 'event_endpoint.show_secret'],
      [
        'event-endpoint update',
        () => ({ id: known('endpointID'), url: 'https://events.example/v2', events: 'case.closed' }),
        'event_endpoint.update',
      ],
      ['event-endpoint pause', id('endpointID'), 'event_endpoint.update'],
      ['event-endpoint enable', id('endpointID'), 'event_endpoint.update'],
      ['event-endpoint delete', id('endpointID'), 'event_endpoint.delete'],
    ]
    for (const [name, options, action] of steps) {
      Object.assign(ids, await run(name, options(), 'a good passphrase'))
      const [latest, ...earlier] = await services.audit.list(operator, org, 100)
      expect(latest, name).toMatchObject({ actor: 'cli:ops', agentAccountID: '', action })
      // Exactly one entry per step: the organization's creation and one for each step before.
      expect(earlier, name).toHaveLength(steps.findIndex(([step]) => step === name) + 1)
    }
    // Every command that is not a list, and not the organization's creation (audited above), is here.
    // (Reads audit nothing; `event-endpoint redeliver` needs a delivery: test/integration/events.test.ts.)
    const changes = Object.keys(commands).filter(
      (name) =>
        !name.endsWith(' list') &&
        !commands[name]?.readOnly &&
        !['org create', 'event-endpoint redeliver'].includes(name),
    )
    expect(steps.map(([name]) => name).sort()).toEqual(changes.sort())
  })
})
