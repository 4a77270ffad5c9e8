import { userInfo } from 'node:os'
import { beforeAll, expect, test } from 'vitest'
import { encodeKeyPair } from '../../src/domain/key-pairs/key-pair-header.js'
import { KEY_CACHE_MS } from '../../src/domain/key-pairs/key-pairs.js'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { runCLI, runCLIJSON } from '../support/processes.js'

// App keys identify a client app of an organization (the TapTalk.io SDKs' App-Key header). The
// compatibility layer calls `appKeys.authenticate`; here it is called directly.
describeEachDatabase('app keys', (dialect) => {
  const server = useServer(dialect)
  const services = () => server().app.services
  const cliJSON = (...args: string[]) => runCLIJSON(args, server().testDatabase.env)
  let org: string
  let other: string
  let admin: (path: string, body?: unknown) => ReturnType<ReturnType<typeof server>['post']>
  let otherAdmin: typeof admin

  beforeAll(async () => {
    org = (await services().organizations.create(operator, 'Apps')).organizationID
    other = (await services().organizations.create(operator, 'Others')).organizationID
    const signIn = async (organizationID: string, email: string, role = 'admin') => {
      const { call } = await signInAgent(server(), organizationID, email, { role })
      return (path: string, body: unknown = {}) => call(`/admin/app_key${path}`, body)
    }
    admin = await signIn(org, 'root@apps.example')
    otherAdmin = await signIn(other, 'root@others.example')
  })

  const refused = (reason: string) => ({
    kind: 'invalidHeader',
    message: 'Request headers are required (App-Key)',
    reason,
  })

  test('CLI: create prints one JSON line whose appKey authenticates for its organization', async () => {
    const key = await cliJSON('app-key', 'create', '--org', org)
    expect(key).toEqual({
      appKeyID: expect.stringMatching(/^\d+$/),
      appKeySecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      appKey: Buffer.from(`${key.appKeyID}:${key.appKeySecret}`).toString('base64'),
      organizationID: org,
      created: expect.any(Number),
    })
    // Stored hashed: the secret is in no row.
    const rows = await server().testDatabase.database.db.selectFrom('app_keys').selectAll().execute()
    expect(rows.map((row) => row.id)).toContain(key.appKeyID)
    expect(JSON.stringify(rows)).not.toContain(key.appKeySecret)
    const identity = { appKeyID: key.appKeyID, organizationID: org }
    expect(await services().appKeys.authenticate(key.appKey)).toEqual(identity)
    expect(await services().appKeys.authenticate(key.appKey, org)).toEqual(identity)
    // A token of another organization with this app's key is refused.
    await expect(services().appKeys.authenticate(key.appKey, other)).rejects.toMatchObject(
      refused('another organization'),
    )
  })

  test('CLI: list shows the keys, never their secrets; revoke takes effect within a second', async () => {
    const key = await cliJSON('app-key', 'create', '--org', org)
    const { appKeys } = await cliJSON('app-key', 'list', '--org', org)
    expect(appKeys).toContainEqual({
      appKeyID: key.appKeyID,
      organizationID: org,
      created: key.created,
      revoked: false,
      revokedTime: null,
    })
    expect(JSON.stringify(appKeys)).not.toContain(key.appKeySecret)
    expect(await services().appKeys.authenticate(key.appKey)).toMatchObject({ appKeyID: key.appKeyID })

    // Revoked by another process: the server may trust what it read for KEY_CACHE_MS, no longer.
    expect(await cliJSON('app-key', 'revoke', '--id', key.appKeyID)).toEqual({
      appKeyID: key.appKeyID,
      revoked: true,
    })
    expect(KEY_CACHE_MS).toBeLessThan(1000)
    server().clock.advance(1000)
    await expect(services().appKeys.authenticate(key.appKey)).rejects.toMatchObject(refused('revoked'))
    const listed = (await cliJSON('app-key', 'list', '--org', org)).appKeys
    expect(listed.find((k: { appKeyID: string }) => k.appKeyID === key.appKeyID)).toMatchObject({
      revoked: true,
      revokedTime: expect.any(Number),
    })
    const unknown = await runCLI(['app-key', 'revoke', '--id', '456'], server().testDatabase.env)
    expect(unknown).toEqual({ code: 1, stdout: '', stderr: 'error: App key 456 not found\n' })
  }, 90_000) // five CLI runs one after another: 30 s is too little on a busy machine

  test('a wrong secret, an unknown key, a malformed or missing header: one error', async () => {
    const key = await services().appKeys.create(operator, org)
    const cases: [string | undefined, string][] = [
      [encodeKeyPair(key.appKeyID, 'not-the-secret'), 'wrong secret'],
      [encodeKeyPair('123', key.appKeySecret), 'unknown key id'],
      [`${key.appKey}!`, 'malformed'],
      [Buffer.from(key.appKeyID).toString('base64'), 'malformed'],
      ['', 'missing'],
      [undefined, 'missing'],
    ]
    for (const [header, reason] of cases) {
      await expect(services().appKeys.authenticate(header), reason).rejects.toMatchObject(refused(reason))
    }
  })

  test('admin API: created (secret once), listed without secrets, revoked; audited', async () => {
    const created = (await admin('/create')).json.data
    expect(created).toMatchObject({ organizationID: org, appKeySecret: expect.stringMatching(/^[\w-]{43}$/) })
    expect(created.appKey).toBe(encodeKeyPair(created.appKeyID, created.appKeySecret))
    const { appKeys } = (await admin('/list')).json.data
    expect(appKeys.map((k: { appKeyID: string }) => k.appKeyID)).toContain(created.appKeyID)
    expect(JSON.stringify(appKeys)).not.toContain(created.appKeySecret)
    expect((await admin('/revoke', { appKeyID: created.appKeyID })).json).toMatchObject({ status: 200 })
    await expect(services().appKeys.authenticate(created.appKey)).rejects.toMatchObject(refused('revoked'))

    const entries = await services().audit.list(operator, org, 100)
    const mine = entries.filter((e) => e.detail.appKeyID === created.appKeyID)
    expect(mine.map((e) => [e.action, e.actor]).reverse()).toEqual([
      ['app_key.create', expect.stringMatching(/^agent:\d+$/)],
      ['app_key.revoke', expect.stringMatching(/^agent:\d+$/)],
    ])
    const cli = `cli:${userInfo().username}`
    expect(entries.filter((e) => e.actor === cli).map((e) => e.action)).toEqual(
      expect.arrayContaining(['app_key.create', 'app_key.revoke']),
    )
    expect(JSON.stringify(entries)).not.toContain(created.appKeySecret)
  })

  test("another organization's admin cannot see or revoke a key (notFound); agents are refused", async () => {
    const key = await services().appKeys.create(operator, org)
    const theirs = (await otherAdmin('/list')).json.data.appKeys
    expect(theirs).toEqual([])
    const revoke = await otherAdmin('/revoke', { appKeyID: key.appKeyID })
    expect(revoke.json.error).toMatchObject({ code: '40401', message: `App key ${key.appKeyID} not found` })
    expect(await services().appKeys.authenticate(key.appKey)).toMatchObject({ appKeyID: key.appKeyID })

    const { id } = await signInAgent(server(), org, 'plain@apps.example')
    const agent = { kind: 'agent', agentAccountID: id, organizationID: org, role: 'agent' } as const
    const otherActor = { ...agent, organizationID: other, role: 'admin' } as const
    await expect(services().appKeys.list(otherActor, org)).rejects.toMatchObject({ kind: 'notFound' })
    await expect(services().appKeys.revoke(otherActor, key.appKeyID)).rejects.toMatchObject({
      kind: 'notFound',
    })
    await expect(services().appKeys.create(otherActor, org)).rejects.toMatchObject({ kind: 'notFound' })
    await expect(services().appKeys.list(agent, org)).rejects.toMatchObject({ kind: 'forbidden' })
    await expect(services().appKeys.revoke(agent, key.appKeyID)).rejects.toMatchObject({ kind: 'forbidden' })
  })
})
