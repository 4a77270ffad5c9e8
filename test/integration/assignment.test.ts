import { beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { openCase, webhook } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'

// Auto-assignment (docs/reference/agent-api.md): a queued case goes to the online agent of its topic with the
// fewest open cases under their maximum (ties: longest idle); waiting cases go to agents who come
// online or free a slot.

describeEachDatabase('auto-assignment', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let billingTopic: number

  beforeAll(async () => {
    org = await createOrganization(server(), 'Assigners')
    billingTopic = (await server().app.services.topics.create(operator, org.organizationID, 'Billing'))
      .topicID
  })

  const agent = async (email: string, topics: number[] | undefined, maxConcurrentCases = 2) => {
    const signedIn = await signInAgent(server(), org.organizationID, email, {
      maxConcurrentCases,
      ...(topics ? { topics } : {}),
    })
    await signedIn.call('/agent/set_status', { status: 'away' })
    return signedIn
  }
  const statusOf = async (caseID: string) =>
    server()
      .testDatabase.database.db.selectFrom('cases')
      .select(['status', 'agent_account_id'])
      .where('id', '=', caseID)
      .executeTakeFirstOrThrow()

  test('respects topics and maximums, picks the least busy, and fills slots as agents come online or close', async () => {
    const general = await agent('general@example.com', undefined, 2)
    const billing = await agent('billing@example.com', [billingTopic], 1)

    // Nobody online: cases wait (no chatbot in this organization, so they open queued).
    const visitors = await Promise.all(['w1', 'w2', 'w3', 'w4'].map((name) => org.signIn(name)))
    const cases = []
    for (const visitor of visitors.slice(0, 3)) {
      cases.push(await openCase(visitor))
      server().clock.advance(1000) // "oldest waiting" is by time
    }
    for (const c of cases) expect((await statusOf(c.caseID)).status).toBe('queued')

    // The general agent comes online and takes the two oldest (their maximum); the third waits.
    await general.call('/agent/set_status', { status: 'online' })
    expect(await statusOf(cases[0]?.caseID as string)).toEqual({
      status: 'assigned',
      agent_account_id: general.id,
    })
    expect(await statusOf(cases[1]?.caseID as string)).toEqual({
      status: 'assigned',
      agent_account_id: general.id,
    })
    expect((await statusOf(cases[2]?.caseID as string)).status).toBe('queued')

    // The billing agent is online but not in the general topic: still waiting.
    await billing.call('/agent/set_status', { status: 'online' })
    expect((await statusOf(cases[2]?.caseID as string)).status).toBe('queued')
    // A billing case goes to the billing agent at once.
    const billed = await openCase(visitors[3] as (typeof visitors)[number], 'invoice wrong', billingTopic)
    expect(await statusOf(billed.caseID)).toEqual({ status: 'assigned', agent_account_id: billing.id })

    // Closing a case frees a slot: the waiting case is the general agent's now.
    await general.call('/case/close', { id: cases[0]?.caseID })
    expect(await statusOf(cases[2]?.caseID as string)).toEqual({
      status: 'assigned',
      agent_account_id: general.id,
    })
  })

  test('a handover naming a free agent goes straight to them; otherwise to the least busy', async () => {
    const shop = await createOrganization(server(), 'Handover shop')
    const bot = await server().app.services.chatbots.create(operator, shop.organizationID, {
      name: 'Bot',
      url: 'http://127.0.0.1:9/b',
    })
    const make = async (email: string) => {
      const { id, call } = await signInAgent(server(), shop.organizationID, email)
      await call('/agent/set_status', { status: 'online' })
      return id
    }
    const [first, second] = [await make('first@example.com'), await make('second@example.com')]
    const call = webhook(server(), bot)
    const handOver = async (name: string, agentEmail: string) => {
      const opened = await openCase(await shop.signIn(name))
      const reply = await call(
        { caseID: opened.caseID, eventType: 'handover_case', handoverCase: { agentEmail } },
        { secretKey: bot.secretKey },
      )
      expect(reply.text).toBe('ok')
      return (await statusOf(opened.caseID)).agent_account_id
    }
    expect(await handOver('h1', 'SECOND@example.com')).toBe(second)
    server().clock.advance(1000)
    // No name: the one with fewer open cases (first has none, second has one).
    expect(await handOver('h2', '')).toBe(first)
    server().clock.advance(1000)
    // A name that is not an agent: the queue picks; both have one case, second has waited longest.
    expect(await handOver('h3', 'nobody@example.com')).toBe(second)
  })

  test('twenty cases opened at once never give an agent more than their maximum', async () => {
    const busy = await createOrganization(server(), 'Busy desk')
    const solo = await signInAgent(server(), busy.organizationID, 'solo@example.com', {
      maxConcurrentCases: 1,
    })
    await solo.call('/agent/set_status', { status: 'online' })
    const visitors = await Promise.all(Array.from({ length: 20 }, (_, i) => busy.signIn(`crowd-${i}`)))
    // On PostgreSQL the twenty run at once on their own connections: only the lock on the agents
    // picked from keeps them from all seeing a free slot. SQLite has one writer.
    await Promise.all(visitors.map((visitor) => openCase(visitor, 'me first')))
    const assigned = await server()
      .testDatabase.database.db.selectFrom('cases')
      .select('id')
      .where('organization_id', '=', busy.organizationID)
      .where('status', '=', 'assigned')
      .execute()
    expect(assigned).toHaveLength(1)
  })

  test("an admin closing an agent's case gives that agent the next waiting case", async () => {
    const desk = await createOrganization(server(), 'Refill desk')
    const make = async (email: string, role: string, max: number) => {
      const signedIn = await signInAgent(server(), desk.organizationID, email, {
        role,
        maxConcurrentCases: max,
      })
      await signedIn.call('/agent/set_status', { status: role === 'admin' ? 'away' : 'online' })
      return signedIn
    }
    const worker = await make('refill@example.com', 'agent', 1)
    const admin = await make('refill-admin@example.com', 'admin', 1)
    const first = await openCase(await desk.signIn('r1'))
    server().clock.advance(1000)
    const second = await openCase(await desk.signIn('r2'))
    expect((await statusOf(first.caseID)).agent_account_id).toBe(worker.id)
    expect((await statusOf(second.caseID)).status).toBe('queued')
    await admin.call('/case/close', { id: first.caseID })
    expect(await statusOf(second.caseID)).toEqual({ status: 'assigned', agent_account_id: worker.id })
  })
})
