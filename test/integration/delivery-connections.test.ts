import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { DeliveryRow } from '../../src/domain/delivery/deliveries.repository.js'
import { Settlements } from '../../src/domain/delivery/settlements.js'
import type { DeliveryTargets } from '../../src/domain/delivery/target.js'
import { repositories } from '../../src/domain/repositories.js'
import { systemClock } from '../../src/lib/clock.js'
import type { Database } from '../../src/storage/database.js'
import { send, type TestServer, useServer } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import { openCase } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase, postgresURL } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { recordStatements } from '../support/statements.js'

// What the delivery worker costs the database under load (issue 21's delivery bench): deliveries
// taken together are recorded together, and on PostgreSQL the worker's queries do not wait behind
// requests for a connection.

let bot: Awaited<ReturnType<typeof startBot>>
beforeAll(async () => {
  bot = await startBot()
})
afterAll(async () => {
  await bot.close()
})

/** `count` visitors of a fresh organization, each with a case its chatbot has not received yet. */
async function pendingDeliveries(server: TestServer, count: number): Promise<DeliveryRow[]> {
  const org = await createOrganization(server, 'Deliveries')
  await server.app.services.chatbots.create(operator, org.organizationID, { name: 'Bot', url: bot.url })
  const caseIDs: string[] = []
  for (let i = 0; i < count; i++) caseIDs.push((await openCase(await org.signIn(`visitor-${i}`))).caseID)
  return (await server.testDatabase.database.db
    .selectFrom('deliveries')
    .selectAll()
    .where('case_id', 'in', caseIDs)
    .execute()) as DeliveryRow[]
}

describeEachDatabase('recording deliveries', (dialect) => {
  const server = useServer(dialect)

  test('deliveries taken together are recorded in one statement, not a transaction each', async () => {
    const deliveries = await pendingDeliveries(server(), 5)
    const { database } = server().testDatabase
    const told: string[] = []
    const chatbot = { settled: async (delivery: DeliveryRow) => void told.push(delivery.id) }
    const settlements = new Settlements(
      { database, clock: systemClock, repositories, targets: { chatbot } as unknown as DeliveryTargets },
      { jitter: () => 0 },
    )
    const recording = recordStatements()
    const now = Date.now()
    await Promise.all(deliveries.map((delivery) => settlements.settle(delivery, { status: 200 }, now)))
    const updates = recording.stop().filter((text) => /^\s*update "deliveries"/.test(text))
    // The first alone (nothing else was on its way), the other four together.
    expect(updates).toHaveLength(2)
    const rows = await database.db
      .selectFrom('deliveries')
      .select(['id', 'status', 'attempts', 'lease_until'])
      .where(
        'id',
        'in',
        deliveries.map((d) => d.id),
      )
      .execute()
    expect(rows.map((row) => [row.status, row.attempts, row.lease_until])).toEqual(
      deliveries.map(() => ['sent', 1, null]),
    )
    expect(told.sort()).toEqual(deliveries.map((d) => d.id).sort())
  })
})

describe.skipIf(!postgresURL)('the delivery worker on connections of its own [postgres]', () => {
  const server = useServer('postgres')

  test('deliveries go out and are recorded while requests hold every connection of the pool', async () => {
    const [delivery] = await pendingDeliveries(server(), 1)
    const { database } = server().testDatabase
    // Twenty transactions (every connection requests have) stay open until the end.
    const { release, held } = await holdConnections(database, 20)
    try {
      const before = bot.requests.length
      await server().app.delivery.drain()
      expect(bot.requests.slice(before).map((request) => request.json.caseID)).toEqual([delivery?.case_id])
    } finally {
      release()
      await Promise.all(held)
    }
    const row = await database.db
      .selectFrom('deliveries')
      .select('status')
      .where('id', '=', delivery?.id as string)
      .executeTakeFirstOrThrow()
    expect(row.status).toBe('sent')
  })

  test("webhook calls never wait for the delivery worker's connections, unknown chatbots included", async () => {
    const org = await createOrganization(server(), 'Webhooks')
    const { release, held } = await holdConnections(server().testDatabase.database.worker, 4)
    try {
      const reply = await send(
        `${server().url}/api/visitor/v1/webhook/chatbot/custom/${org.organizationID}/123456789`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'secret-key': 'a guess' },
          body: JSON.stringify({ caseID: 'none', messageType: 'text', text: { body: 'hi' } }),
        },
      )
      // Refused for its key, not 503 for want of a connection.
      expect(reply.status).toBe(401)
    } finally {
      release()
      await Promise.all(held)
    }
  })
})

/** `count` transactions of `database` holding a connection each until `release()`. */
async function holdConnections(database: Database, count: number) {
  let release = () => {}
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  const begun: Promise<void>[] = []
  const held = Array.from({ length: count }, () => {
    let began = () => {}
    begun.push(new Promise<void>((resolve) => (began = resolve)))
    return database.transaction(async (trx) => {
      await sql`select 1`.execute(trx)
      began()
      await gate
    })
  })
  await Promise.all(begun)
  return { release, held }
}
