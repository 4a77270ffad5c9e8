import type { ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { send } from '../support/app.js'
import { createTestDatabase, type TestDatabase } from '../support/databases.js'
import { validTicketRequest } from '../support/fixtures.js'
import {
  freePort,
  runCLI,
  runCLIJSON,
  type ServerProcess,
  startRedis,
  startServerProcess,
  stopRedis,
  untilReady,
} from '../support/processes.js'
import { connect, refusedUpgrade } from '../support/sockets.js'

// Several instances on one PostgreSQL and one Redis behave as one service. The Redis here is a
// real redis-server of our own on a free port, so the test can stop and start it.

const enabled = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL)
if (!enabled) console.log('Multi-instance tests skipped: they need both DATABASE_URL and REDIS_URL.')

describe.skipIf(!enabled)('two instances on PostgreSQL and Redis', () => {
  let testDatabase: TestDatabase
  let redis: ChildProcess
  let redisPort: number
  let a: ServerProcess
  let b: ServerProcess
  let env: Record<string, string>

  beforeAll(async () => {
    testDatabase = await createTestDatabase('postgres')
    redisPort = await freePort()
    redis = await startRedis(redisPort)
    env = { ...(testDatabase.env as Record<string, string>), REDIS_URL: `redis://127.0.0.1:${redisPort}` }
    ;[a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)])
  })
  afterAll(async () => {
    for (const instance of [a, b]) instance?.child.kill('SIGTERM')
    await Promise.all([a?.exited, b?.exited])
    if (redis) await stopRedis(redis)
    await testDatabase?.drop()
  })

  /** Signs a user in through `instance` (ticket and exchange both there). */
  async function signIn(instance: ServerProcess, serverKey: string, xcUserID: string) {
    const ticket = await send(`${instance.url}/v1/server/auth_ticket/request`, {
      method: 'POST',
      headers: { 'server-key': serverKey, 'content-type': 'application/json' },
      body: JSON.stringify(validTicketRequest({ xcUserID })),
    })
    const tokens = await send(`${instance.url}/v1/auth/access_token/request`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ticket.json.data.ticket}` },
    })
    return tokens.json.data as { accessToken: string; user: { userID: string } }
  }

  const sendText = (instance: ServerProcess, accessToken: string, body: Record<string, unknown>) =>
    send(`${instance.url}/v1/chat/message/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 1001, ...body }),
    })

  test('a message sent through A reaches a socket on B; a Redis restart closes sockets for resync', async () => {
    const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Twin'], env)
    const { serverKey } = await runCLIJSON(['server-key', 'create', '--org', organizationID], env)
    const alice = await signIn(a, serverKey, 'alice')
    const bob = await signIn(b, serverKey, 'bob')
    // Bob's token, issued by B, works on A too: instances share nothing but storage and keys.
    expect(
      (
        await send(`${a.url}/connect?check=1`, {
          method: 'GET',
          headers: { authorization: `Bearer ${bob.accessToken}` },
        })
      ).status,
    ).toBe(200)

    const bobSocket = await connect(b.url, bob.accessToken)
    const first = await sendText(a, alice.accessToken, {
      recipientUserID: bob.user.userID,
      localID: 'before',
      body: 'through Redis',
    })
    expect(first.status).toBe(200)
    const [delivered] = await bobSocket.waitFor('chat/sendMessage')
    expect(delivered.data).toMatchObject({
      body: 'through Redis',
      messageID: first.json.data.message.messageID,
    })

    // Redis goes away: B can no longer promise its sockets every event, so it closes them (the
    // client resyncs), and refuses new ones until it has subscribed again.
    await stopRedis(redis)
    expect(await bobSocket.closed).toEqual({ code: 4002, reason: 'events may have been missed; resync' })
    const refused = await refusedUpgrade(b.url, { authorization: `Bearer ${bob.accessToken}` })
    expect(refused.status).toBe(503)
    expect(refused.body).toMatchObject({ error: { code: '50300' } })
    redis = await startRedis(redisPort)
    await Promise.all([untilReady(a), untilReady(b)])

    const again = await connect(b.url, bob.accessToken)
    const second = await sendText(a, alice.accessToken, {
      recipientUserID: bob.user.userID,
      localID: 'after',
      body: 'back again',
    })
    expect(second.status).toBe(200)
    const [live] = await again.waitFor('chat/sendMessage', 1, 10_000)
    expect(live.data.body).toBe('back again')
    await again.close()
  }, 90_000) // two server processes and a Redis restart

  test('revoking a session on A closes its socket on B', async () => {
    const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Revokers'], env)
    const { serverKey } = await runCLIJSON(['server-key', 'create', '--org', organizationID], env)
    const carol = await signIn(a, serverKey, 'carol')
    const socket = await connect(b.url, carol.accessToken)
    const logout = await send(`${a.url}/v1/client/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${carol.accessToken}` },
    })
    expect(logout.status).toBe(200)
    expect(await socket.closed).toEqual({ code: 4001, reason: 'session revoked' })
  }, 60_000) // two server processes

  test('20 agents racing to take one case over both instances: exactly one wins', async () => {
    const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Racers'], env)
    const { serverKey } = await runCLIJSON(['server-key', 'create', '--org', organizationID], env)
    // Twenty agents, created by the CLI five at a time (each a process), signed in on A or B.
    const signUp = async (i: number) => {
      const email = `racer${i}@example.com`
      const args = ['agent', 'create', '--org', organizationID, '--email', email, '--name', `R${i}`]
      const created = await runCLI([...args, '--role', 'agent', '--json'], env, 'correct horse battery\n')
      expect(created.code).toBe(0)
      const instance = i % 2 === 0 ? a : b
      const login = await send(`${instance.url}/api/agent/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'correct horse battery' }),
      })
      return { instance, token: login.json.data.token as string }
    }
    const tokens: { instance: ServerProcess; token: string }[] = []
    for (let batch = 0; batch < 20; batch += 5) {
      tokens.push(...(await Promise.all([0, 1, 2, 3, 4].map((n) => signUp(batch + n)))))
    }
    // No chatbot in this organization: the case opens queued.
    const visitor = await signIn(a, serverKey, 'racing-visitor')
    const opened = await send(`${a.url}/api/visitor/v1/client/case/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${visitor.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'who takes me?' }),
    })
    const caseID = opened.json.data.case.caseID
    expect(opened.json.data.case.status).toBe('queued')
    const replies = await Promise.all(
      tokens.map(({ instance, token }) =>
        send(`${instance.url}/api/agent/v1/case/take`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ id: caseID }),
        }),
      ),
    )
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1)
    expect(replies.filter((r) => r.json.error.code === '40901')).toHaveLength(19)
  }, 120_000) // twenty-two CLI processes, five at a time: 31–50 s on a busy CI machine
})
