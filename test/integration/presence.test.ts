import type { ChildProcess } from 'node:child_process'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { SOCKET_TTL_MS } from '../../src/realtime/presence.js'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { eventually } from '../support/poll.js'
import { freePort, startRedis, startServerProcess, stopRedis, untilReady } from '../support/processes.js'
import { connect } from '../support/sockets.js'

// Presence across instances heals by itself: after Redis lost its data, and after an instance
// died without saying goodbye. Each suite has a redis-server of its own, so flushing it or
// reading its keys disturbs nobody.

// biome-ignore lint/suspicious/noExplicitAny: frames are asserted field by field
const statusOf = (userID: string, isOnline: boolean) => (frame: { eventName: string; data: any }) =>
  frame.eventName === 'user/status' && frame.data.user.userID === userID && frame.data.isOnline === isOnline

describeEachDatabase('presence on Redis', (dialect) => {
  let redisProcess: ChildProcess
  let redis: Redis
  let server: TestServer
  let redisURL: string

  beforeAll(async () => {
    const port = await freePort()
    redisProcess = await startRedis(port)
    redisURL = `redis://127.0.0.1:${port}`
    redis = new Redis(redisURL)
    // Ping rounds (and so presence refreshes and expiry sweeps) every 50 ms.
    server = await startServer(dialect, { REDIS_URL: redisURL }, { realtime: { pingIntervalMs: 50 } })
  })
  afterAll(async () => {
    redis?.disconnect()
    if (server) await stopServer(server)
    if (redisProcess) await stopRedis(redisProcess)
  })

  test('after Redis lost its data, refreshes put presence back, so going offline is still announced', async () => {
    const org = await createOrganization(server, 'Flushed')
    const [alice, bob] = await Promise.all([org.signIn('alice'), org.signIn('bob')])
    await alice.call('/v1/client/room/create', { name: 'Pair', type: 2, userIDs: [bob.userID] })
    // Bob first, so that he is there to hear alice come online.
    const bobSocket = await connect(server.url, bob.accessToken)
    const aliceSocket = await connect(server.url, alice.accessToken)
    await bobSocket.waitUntil(statusOf(alice.userID, true))
    // What a Redis restart without persistence does to presence (the sockets stay open here).
    await redis.flushall()
    // Her key, in whichever bucket of presence (parley:{presence:<n>}:user:<userID>).
    const key = `parley:{presence:*}:user:${alice.userID}`
    await eventually(async () => (await redis.keys(key)).length === 1, `${key} is back`)
    await aliceSocket.close()
    await bobSocket.waitUntil(statusOf(alice.userID, false))
    await bobSocket.close()
  })

  test('a user whose instance died goes offline for the others once their sockets lapse', async () => {
    const org = await createOrganization(server, 'Orphans')
    const [carol, dave] = await Promise.all([org.signIn('carol'), org.signIn('dave')])
    await carol.call('/v1/client/room/create', { name: 'Pair', type: 2, userIDs: [dave.userID] })
    const other = await startServerProcess({
      ...server.testDatabase.env,
      PARLEY_MASTER_KEY: server.testDatabase.masterKey.toString('base64'),
      REDIS_URL: redisURL,
    })
    await untilReady(other)
    try {
      const daveSocket = await connect(server.url, dave.accessToken)
      await connect(other.url, carol.accessToken)
      await daveSocket.waitUntil(statusOf(carol.userID, true))
      other.child.kill('SIGKILL')
      await other.exited
      expect(daveSocket.frames.some(statusOf(carol.userID, false))).toBe(false)
      // Nobody refreshes carol's socket any more; when it lapses (by the other instance's wall
      // clock, which stamped it), this instance lets it go.
      server.clock.advance(Date.now() - server.clock.now() + SOCKET_TTL_MS + 1000)
      await daveSocket.waitUntil(statusOf(carol.userID, false))
      await daveSocket.close()
    } finally {
      if (other.child.exitCode === null) other.child.kill('SIGKILL')
    }
  }, 60_000) // a second server process, started and killed
})
