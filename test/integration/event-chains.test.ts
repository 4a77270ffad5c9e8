import { afterAll, beforeAll, expect, test } from 'vitest'
import { useServer } from '../support/app.js'
import { type BotRequest, startBot } from '../support/bot-server.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'

// An endpoint's chains follow one another: while one goes out (on the sender thread), the one
// before it is recorded and the one after it claimed, so a backlog streams without a gap; order
// and one webhook-id per event hold across chains, also when one stops at a failure.
describeEachDatabase('event chains back to back', (dialect) => {
  // Chains of 5 here (200 by default), and no jitter: the retry falls on the schedule.
  const server = useServer(dialect, {}, { delivery: { jitter: () => 0, endpointChain: 5 } })
  let backend: Awaited<ReturnType<typeof startBot>>
  let answer: (request: BotRequest) => number = () => 200
  beforeAll(async () => {
    backend = await startBot((request) => answer(request))
  })
  afterAll(async () => {
    await backend.close()
  })

  const userOf = (r: BotRequest) => (r.json as { data: { user: { xcUserID: string } } }).data.user.xcUserID

  test('a backlog goes out in order over many chains; a failure in one gives back the one claimed after it', async () => {
    const org = await createOrganization(server(), 'Chains')
    await server().app.services.eventEndpoints.create(operator, org.organizationID, {
      url: `${backend.origin}/chains`,
      eventTypes: ['user.created'],
    })
    const names = Array.from({ length: 32 }, (_, n) => `user-${n}`)
    for (const name of names) await org.signIn(name)
    let seen = 0
    // The 13th is refused: the third chain stops there, while the fourth was claimed ahead.
    answer = (request) => (request.url === '/chains' && ++seen === 13 ? 503 : 200)
    const before = backend.requests.length
    await server().app.delivery.drain()
    const received = () => backend.requests.slice(before).filter((r) => r.url === '/chains')
    expect(received().map(userOf)).toEqual(names.slice(0, 13))
    const rows = await server()
      .testDatabase.database.db.selectFrom('deliveries')
      .select(['status', 'lease_until', 'attempts'])
      .where('endpoint_id', 'is not', null)
      .orderBy('seq')
      .orderBy('id')
      .execute()
    const mine = rows.slice(-names.length)
    expect(mine.map((d) => d.status)).toEqual([...names.map((_, n) => (n < 12 ? 'sent' : 'pending'))])
    // What was claimed ahead and not sent is given back at once (not left to its lease).
    expect(mine.slice(12).every((d) => d.lease_until === null)).toBe(true)
    expect(mine[12]?.attempts).toBe(1)

    server().clock.advance(1000)
    await server().app.delivery.drain()
    expect(received().map(userOf)).toEqual([...names.slice(0, 13), ...names.slice(12)])
    const ids = received().map((r) => r.headers['webhook-id'])
    expect(new Set(ids).size).toBe(names.length) // the refused one's retry kept its webhook-id
  })
})
