import { afterAll, beforeAll, expect, test } from 'vitest'
import { KEY_CACHE_MS } from '../src/domain/server-keys/server-keys.service.js'
import { startServer, stopServer, type TestServer } from './support/app.js'
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './support/databases.js'
import { validTicketRequest } from './support/fixtures.js'
import { runCLI, runCLIJSON } from './support/processes.js'

describeEachDatabase('admin CLI', (dialect) => {
  let testDatabase: TestDatabase
  let server: TestServer
  let organizationID: string

  // The server runs on the same data while the CLI, in other processes, changes it.
  beforeAll(async () => {
    testDatabase = await createTestDatabase(dialect)
    server = await startServer(testDatabase)
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
})
