import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { send } from '../support/app.js'
import { type Deployed, Deployment } from '../support/deployment.js'
import { caseThroughWebhook, chatBetweenInstances } from '../support/functional-checks.js'
import { untilReady } from '../support/processes.js'
import { RedisCluster } from '../support/redis-cluster.js'
import { connect, type TestSocket } from '../support/sockets.js'

// Two instances on a Redis Cluster of the test's own (three masters): the functional checks pass,
// every key a script or a pipeline uses together shares a slot, frames travel on sharded
// channels, and a master restarted closes the sockets whose channels it carried, for resync.

const hasRedisCLI = (() => {
  try {
    execFileSync('redis-cli', ['--version'])
    return true
  } catch {
    return false
  }
})()
const enabled = Boolean(process.env.DATABASE_URL) && hasRedisCLI
if (!enabled) console.log('Redis Cluster tests skipped: they need DATABASE_URL and redis-cli.')

/** Connects as a client does: a 503 (events not promised right now) is tried again shortly. */
async function connectAsClient(url: string, accessToken: string): Promise<TestSocket> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await connect(url, accessToken)
    } catch (error) {
      if (attempt >= 20 || !String(error).includes('503')) throw error
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }
}

describe.skipIf(!enabled)('two instances on a 3-master Redis Cluster', () => {
  let cluster: RedisCluster
  let deployment: Deployment
  beforeAll(async () => {
    cluster = await RedisCluster.start(3)
    deployment = await Deployment.start(2, { env: { REDIS_URL: cluster.url } })
  }, 60_000)
  afterAll(async () => {
    await deployment?.stop()
    await cluster?.stop()
  })

  test('tickets, a chat between the instances, its history, and presence', async () => {
    await chatBetweenInstances(deployment)
  }, 60_000)

  test('a case through the chatbot webhook, handed over to an agent signed in on the other instance', async () => {
    await caseThroughWebhook(deployment)
    // Presence, login limits and socket expiry each kept their keys in one slot: no instance was
    // refused a command (CROSSSLOT), sent elsewhere (MOVED), or logged an error.
    const lines = deployment.instances.flatMap((instance) => instance.lines)
    expect(lines.filter((line) => /CROSSSLOT|MOVED|"level":50/.test(line))).toEqual([])
  }, 60_000)

  test('a master restarted: the sockets whose channels it carried resync, and frames flow again', async () => {
    const [a, b] = deployment.urls as [string, string]
    const alice = await deployment.signIn('restart-alice', a)
    // Users enough that their channels fall on every master.
    const readers: Deployed[] = []
    for (let i = 0; i < 12; i++) readers.push(await deployment.signIn(`restart-reader-${i}`, b))
    const sockets = await Promise.all(readers.map((reader) => connectAsClient(b, reader.accessToken)))
    const closes = sockets.map((socket) => socket.closed)

    await cluster.restart(0)
    await Promise.all(deployment.instances.map((instance) => untilReady(instance, 30_000)))
    // Some channels lived on the restarted master; their sockets were told to resync.
    const closed = await Promise.all(
      closes.map((close) =>
        Promise.race([close, new Promise((resolve) => setTimeout(resolve, 100, undefined))]),
      ),
    )
    const resynced = closed.filter((c) => (c as { code?: number } | undefined)?.code === 4002)
    expect(resynced.length).toBeGreaterThan(0)

    // Reconnected, every reader hears alice again, through A.
    const again = await Promise.all(readers.map((reader) => connectAsClient(b, reader.accessToken)))
    for (const [i, reader] of readers.entries()) {
      const sent = await send(`${a}/v1/chat/message/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${alice.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          recipientUserID: reader.userID,
          localID: `after-${i}`,
          type: 1001,
          body: `hello ${i}`,
        }),
      })
      expect(sent.status).toBe(200)
    }
    for (const [i, socket] of again.entries()) {
      const [frame] = await socket.waitFor('chat/sendMessage', 1, 10_000)
      expect(frame.data.body).toBe(`hello ${i}`)
    }
    await Promise.all([...sockets, ...again].map((socket) => socket.close()))
  }, 90_000)
})
