import { userInfo } from 'node:os'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { KEY_CACHE_MS } from '../../src/domain/server-keys/server-keys.service.js'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../support/databases.js'
import { operator, validTicketRequest } from '../support/fixtures.js'
import { runCLI, runCLIJSON } from '../support/processes.js'
import { connect } from '../support/sockets.js'

describeEachDatabase('admin CLI', (dialect) => {
  let testDatabase: TestDatabase
  let server: TestServer
  let organizationID: string

  // The server runs on the same data while the CLI, in other processes, changes it.
  beforeAll(async () => {
    testDatabase = await createTestDatabase(dialect)
    // Agents' sockets are checked at each ping: the CLI's revocations reach no hub of the server.
    server = await startServer(testDatabase, {}, { realtime: { pingIntervalMs: 100 } })
    ;({ organizationID } = await runCLIJSON(['org', 'create', '--name', 'Acme Ltd'], testDatabase.env))
  })
  afterAll(async () => {
    await stopServer(server)
  })

  const cli = (...args: string[]) => runCLI(args, testDatabase.env)
  const cliJSON = (...args: string[]) => runCLIJSON(args, testDatabase.env)
  const requestTicket = (serverKey: string) =>
    server.post('/v1/server/auth_ticket/request', validTicketRequest(), { 'server-key': serverKey })

  test('org create prints the new organizationID as one JSON line', async () => {
    const organization = await cliJSON('org', 'create', '--name', 'Second Org')
    expect(organization).toEqual({
      organizationID: expect.stringMatching(/^\d+$/),
      name: 'Second Org',
      created: expect.any(Number),
      updated: expect.any(Number),
    })
    expect((await server.app.services.organizations.get(organization.organizationID)).name).toBe('Second Org')
  })

  test('server-key create prints the id, the secret and the ready Server-Key header, which works', async () => {
    const key = await cliJSON('server-key', 'create', '--org', organizationID)
    expect(key).toEqual({
      serverKeyID: expect.stringMatching(/^\d+$/),
      serverKeySecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      serverKey: Buffer.from(`${key.serverKeyID}:${key.serverKeySecret}`).toString('base64'),
      organizationID,
      created: expect.any(Number),
    })
    expect((await requestTicket(key.serverKey)).status).toBe(200)
  })

  test('server-key list shows the keys of an organization, never their secrets', async () => {
    const key = await cliJSON('server-key', 'create', '--org', organizationID)
    const { serverKeys } = await cliJSON('server-key', 'list', '--org', organizationID)
    expect(serverKeys).toContainEqual({
      serverKeyID: key.serverKeyID,
      organizationID,
      created: key.created,
      revoked: false,
      revokedTime: null,
    })
    expect(JSON.stringify(serverKeys)).not.toContain(key.serverKeySecret)
  })

  test('server-key revoke from another process stops the key within a second', async () => {
    const key = await cliJSON('server-key', 'create', '--org', organizationID)
    expect((await requestTicket(key.serverKey)).status).toBe(200)

    expect(await cliJSON('server-key', 'revoke', '--id', key.serverKeyID)).toEqual({
      serverKeyID: key.serverKeyID,
      revoked: true,
    })
    // The server may trust what it read for KEY_CACHE_MS; one second later it must have re-read.
    expect(KEY_CACHE_MS).toBeLessThan(1000)
    server.clock.advance(1000)
    const reply = await requestTicket(key.serverKey)
    expect(reply.status).toBe(400)
    expect(reply.json.error.code).toBe('40001')

    const { serverKeys } = await cliJSON('server-key', 'list', '--org', organizationID)
    expect(serverKeys.find((k: { serverKeyID: string }) => k.serverKeyID === key.serverKeyID)).toMatchObject({
      revoked: true,
      revokedTime: expect.any(Number),
    })
  })

  test('without --json, results are key: value lines', async () => {
    const result = await cli('org', 'create', '--name', 'Plain')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^organizationID: \d+\nname: Plain\ncreated: \d+\nupdated: \d+\n$/)
  })

  test('wrong arguments print usage to stderr and exit 2', async () => {
    for (const args of [
      [],
      ['org'],
      ['org', 'create'],
      ['server-key', 'create'],
      ['nonsense'],
      ['org', 'create', '--bogus', 'x'],
    ]) {
      const result = await cli(...args)
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr).toContain('usage: parley <command>')
    }
  })

  test('an unknown organization or key is an error, exit 1', async () => {
    const noOrg = await cli('server-key', 'create', '--org', '123', '--json')
    expect(noOrg).toEqual({ code: 1, stdout: '', stderr: 'error: Organization 123 not found\n' })
    const noKey = await cli('server-key', 'revoke', '--id', '456')
    expect(noKey).toEqual({ code: 1, stdout: '', stderr: 'error: Server key 456 not found\n' })
  })

  test('--help lists every command; every command has --help; both exit 0 on stdout', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const result = await cli(...args)
      expect(result, args.join(' ')).toMatchObject({ code: 0, stderr: '' })
      for (const command of ['org create', 'org list', 'agent deactivate', 'agent set-password', 'migrate'])
        expect(result.stdout).toContain(command)
    }
    const names = [
      'org create',
      'org list',
      'server-key create',
      'server-key list',
      'server-key revoke',
      'app-key create',
      'app-key list',
      'app-key revoke',
      'topic create',
      'chatbot create',
      'chatbot show',
      'chatbot rotate-secret',
      'chatbot activate',
      'chatbot deactivate',
      'agent create',
      'agent list',
      'agent deactivate',
      'agent reactivate',
      'agent set-password',
      'migrate',
    ]
    const helps = await Promise.all(names.map((name) => cli(...name.split(' '), '--help')))
    names.forEach((name, i) => {
      expect(helps[i], name).toMatchObject({ code: 0, stderr: '' })
      expect(helps[i]?.stdout, name).toContain(`  ${name}`)
    })
    expect((await cli('org', '--help')).stdout).toMatch(/org create[\s\S]*org list/)
    expect((await cli('nonsense', '--help')).code).toBe(2)
  })

  test('org list prints every organization as one JSON line', async () => {
    const result = await cli('org', 'list', '--json')
    expect(result.code).toBe(0)
    expect(result.stdout.split('\n')).toHaveLength(2)
    const { organizations } = JSON.parse(result.stdout)
    expect(organizations).toContainEqual({
      organizationID,
      name: 'Acme Ltd',
      created: expect.any(Number),
      updated: expect.any(Number),
    })
    expect((await cli('org', 'list', '--name', 'x')).code).toBe(2)
  })

  test('changes made at the CLI are in the audit log, made by "cli:<OS user>"', async () => {
    const actor = `cli:${userInfo().username}`
    const { organizationID: org } = await cliJSON('org', 'create', '--name', 'Audited')
    const key = await cliJSON('server-key', 'create', '--org', org)
    await cliJSON('server-key', 'revoke', '--id', key.serverKeyID)
    const topic = await cliJSON('topic', 'create', '--org', org, '--name', 'Billing')
    const first = await cliJSON(
      'chatbot',
      'create',
      '--org',
      org,
      '--name',
      'One',
      '--url',
      'http://127.0.0.1:9/a',
    )
    const second = await cliJSON(
      'chatbot',
      'create',
      '--org',
      org,
      '--name',
      'Two',
      '--url',
      'http://127.0.0.1:9/b',
    )
    await cliJSON('chatbot', 'activate', '--id', second.chatbotID)
    await cliJSON('chatbot', 'show', '--id', second.chatbotID)
    await cliJSON('chatbot', 'rotate-secret', '--id', second.chatbotID)
    await cliJSON('chatbot', 'deactivate', '--id', second.chatbotID)
    const agent = await createAgentWithCLI(org, 'audited@example.com', 'agent')
    const entries = await server.app.services.audit.list(operator, org, 100)
    expect(entries.map((e) => e.action).reverse()).toEqual([
      'organization.create',
      'server_key.create',
      'server_key.revoke',
      'topic.create',
      'chatbot.create',
      'chatbot.create',
      'chatbot.activate',
      'chatbot.show_secret',
      'chatbot.rotate_secret',
      'chatbot.deactivate',
      'agent.create',
    ])
    for (const entry of entries) expect(entry).toMatchObject({ actor, agentAccountID: '' })
    expect(entries.find((e) => e.action === 'topic.create')?.detail).toEqual({
      topicID: topic.topicID,
      name: 'Billing',
    })
    expect(entries.find((e) => e.action === 'chatbot.activate')?.detail).toEqual({
      chatbotID: second.chatbotID,
    })
    expect(entries.find((e) => e.action === 'agent.create')?.detail).toMatchObject({
      agentAccountID: agent.agentAccountID,
    })
    expect(JSON.stringify(entries)).not.toContain(second.secretKey)
    expect(JSON.stringify(entries)).not.toContain(first.secretKey)
  }, 120_000) // a dozen CLI processes, each starting Node and connecting: 16–30 s on a busy CI machine

  test('agents: list, deactivate (not the last admin), reactivate, set a password from stdin', async () => {
    const { organizationID: org } = await cliJSON('org', 'create', '--name', 'Staff')
    const boss = await createAgentWithCLI(org, 'boss@staff.example', 'admin')
    const ann = await createAgentWithCLI(org, 'ann@staff.example', 'agent')
    const login = (email: string, password: string) =>
      server.post('/api/agent/v1/auth/login', { email, password })
    const token = (await login('ann@staff.example', 'first passphrase')).json.data.token
    const socket = await connect(server.url, token)

    const lastAdmin = await cli('agent', 'deactivate', '--id', boss.agentAccountID)
    expect(lastAdmin).toMatchObject({ code: 1, stderr: 'error: an organization keeps at least one admin\n' })
    expect(await cliJSON('agent', 'deactivate', '--id', ann.agentAccountID)).toMatchObject({ active: false })
    expect((await socket.closed).code).toBe(4001)
    // The CLI is another process: the server trusts what it read for at most a second.
    server.clock.advance(1000)
    expect(
      (await server.post('/api/agent/v1/case/get_list', {}, { authorization: `Bearer ${token}` })).status,
    ).toBe(401)
    expect((await login('ann@staff.example', 'first passphrase')).status).toBe(401)
    const { agents } = await cliJSON('agent', 'list', '--org', org)
    expect(agents.map((a: { email: string; active: boolean }) => [a.email, a.active])).toEqual([
      ['boss@staff.example', true],
      ['ann@staff.example', false],
    ])
    expect(await cliJSON('agent', 'reactivate', '--id', ann.agentAccountID)).toMatchObject({ active: true })

    const set = await runCLI(
      ['agent', 'set-password', '--id', ann.agentAccountID, '--json'],
      testDatabase.env,
      'second passphrase\n',
    )
    expect(set.code).toBe(0)
    expect(JSON.parse(set.stdout)).toEqual({ agentAccountID: ann.agentAccountID, passwordSet: true })
    expect(set.stdout).not.toContain('passphrase')
    expect((await login('ann@staff.example', 'first passphrase')).status).toBe(401)
    expect((await login('ann@staff.example', 'second passphrase')).status).toBe(200)
    const actions = (await server.app.services.audit.list(operator, org, 100)).map((e) => e.action)
    expect(actions).toEqual(
      expect.arrayContaining(['agent.deactivate', 'agent.reactivate', 'agent.set_password']),
    )
    expect(actions).toHaveLength(6)
  }, 90_000) // about a dozen CLI processes, each hashing or checking a password

  const createAgentWithCLI = async (org: string, email: string, role: string) => {
    const args = [
      'agent',
      'create',
      '--org',
      org,
      '--email',
      email,
      '--name',
      email,
      '--role',
      role,
      '--json',
    ]
    const result = await runCLI(args, testDatabase.env, 'first passphrase\n')
    if (result.code !== 0) throw new Error(result.stderr)
    return JSON.parse(result.stdout) as { agentAccountID: string }
  }
})
