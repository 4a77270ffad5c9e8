import { afterEach, describe, expect, test } from 'vitest'
import { Deployment } from '../support/deployment.js'
import { untilReady } from '../support/processes.js'

// An operator's worst night for the database: PostgreSQL connections terminated again and again
// while the customer backend asks for tickets on two instances. Connections break at every point
// of their life (checked out, mid-transaction, just handed over by the pool, during a ROLLBACK);
// no instance may die, and every failed request is a 503 the backend can retry.

const enabled = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL)

let running: Deployment | undefined
afterEach(async () => {
  await running?.stop()
  running = undefined
})

describe.skipIf(!enabled)('a storm of terminated PostgreSQL connections', () => {
  test('20 terminations 150 ms apart under 16 ticket loops: no instance dies, failures are 503, all ready again', async () => {
    const deployment = await Deployment.start(2)
    running = deployment
    const statuses = new Map<number, number>()
    let storming = true
    const loop = async (n: number) => {
      const url = deployment.urls[n % 2] as string
      for (let i = 0; storming; i++) {
        const reply = await deployment.requestTicket(url, `storm-${n}-${i}`).catch(() => undefined)
        statuses.set(reply?.status ?? 0, (statuses.get(reply?.status ?? 0) ?? 0) + 1)
      }
    }
    const loops = Array.from({ length: 16 }, (_, n) => loop(n))
    for (let round = 0; round < 20; round++) {
      await deployment.terminateDatabaseConnections()
      await new Promise((resolve) => setTimeout(resolve, 150))
    }
    storming = false
    await Promise.all(loops)
    console.log(`terminated 20 times: answers ${JSON.stringify(Object.fromEntries(statuses))}`)
    expect(deployment.instances.map((instance) => instance.child.exitCode)).toEqual([null, null])
    await Promise.all(deployment.instances.map((instance) => untilReady(instance, 30_000)))
    expect([...statuses.keys()].filter((status) => status !== 200 && status !== 503)).toEqual([])
    const after = await deployment.requestTicket(deployment.urls[1] as string, 'after-the-storm')
    expect(after.status).toBe(200)
  }, 120_000) // two server processes and 20 rounds of terminations on a busy 2-core machine
})
