import { beforeAll, expect, test } from 'vitest'
import { AGENT_PASSWORD, signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { openCase, webhook } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { type DialectName, describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'

// Support reports (docs/reference/agent-api.md, "Reports"): cases with known timings made through the real API under a
// clock the test moves, around the night Europe/Berlin goes to summer time (2027-03-28, 02:00 CET
// → 03:00 CEST: a local day of 23 hours), and the figures per day, topic and agent.

const V = '/api/visitor/v1/client'
const MIN = 60_000
/** Reports by day of each database, to compare them. */
const byDay = new Map<DialectName, unknown>()

describeEachDatabase('support reports', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  const ids: Record<string, string> = {}
  let billing: number
  let general: number

  /** Moves the clock forward to an instant. */
  const at = (iso: string) => {
    const clock = server().clock
    const target = Date.parse(iso)
    if (target < clock.now()) throw new Error(`the clock does not go back to ${iso}`)
    clock.advance(target - clock.now())
  }
  /** Signs the agent in again (sessions last 12 hours of the clock). */
  const as = async (email: string) => {
    const login = await server().post('/api/agent/v1/auth/login', { email, password: AGENT_PASSWORD })
    const token = login.json.data.token as string
    return (path: string, body: unknown = {}) =>
      server().post(`/api/agent/v1${path}`, body, { authorization: `Bearer ${token}` })
  }
  /** The visitor signed in now (access tokens last 15 minutes of the clock). */
  const visitor = (name: string) => org.signIn(`report-${name}`)
  const ok = async (reply: Promise<{ status: number; text: string }>) => {
    const { status, text } = await reply
    expect(status, text).toBe(200)
  }
  const answer = async (email: string, caseID: string) => {
    const call = await as(email)
    await ok(call('/case/take', { id: caseID }))
    await ok(
      call('/case/send_message', {
        id: caseID,
        localID: `r-${caseID}`,
        messageType: 'text',
        text: { body: 'Hello, I am here' },
      }),
    )
  }
  const close = async (email: string, caseID: string) => ok((await as(email))('/case/close', { id: caseID }))
  const rate = async (name: string, caseID: string, rating: number) =>
    ok((await visitor(name)).call(`${V}/case/rate`, { id: caseID, rating }))

  beforeAll(async () => {
    at('2027-03-27T20:00:00Z')
    org = await createOrganization(server(), 'Reports')
    const { topics, chatbots } = server().app.services
    billing = (await topics.create(operator, org.organizationID, 'Billing')).topicID
    general = (await topics.list(org.organizationID)).find((t) => t.name === 'General')?.topicID as number
    const admin = await signInAgent(server(), org.organizationID, 'boss@reports.example', { role: 'admin' })
    ids.admin = admin.id
    ids.ada = (await signInAgent(server(), org.organizationID, 'ada@reports.example')).id
    ids.bob = (await signInAgent(server(), org.organizationID, 'bob@reports.example')).id
    // c0: the chatbot has it for half an hour, then hands it over; Ada answers 5 minutes later.
    const bot = await chatbots.create(operator, org.organizationID, {
      name: 'Bot',
      url: 'http://127.0.0.1:9/b',
    })
    at('2027-03-27T21:00:00Z')
    const c0 = await openCase(await visitor('v0'), 'hello bot', general)
    at('2027-03-27T21:30:00Z')
    const handedOver = await webhook(server(), bot)(
      { caseID: c0.caseID, eventType: 'handover_case' },
      { secretKey: bot.secretKey },
    )
    expect(handedOver.text).toBe('ok')
    await chatbots.deactivate(operator, bot.chatbotID)
    at('2027-03-27T21:35:00Z')
    await answer('ada@reports.example', c0.caseID)
    // c1 (General): answered after 10 minutes, closed after 70, rated 5 (Berlin: opened the 27th,
    // closed and rated the 28th; UTC: all on the 27th).
    at('2027-03-27T22:00:00Z')
    const c1 = await openCase(await visitor('v1'), 'where is my parcel', general)
    at('2027-03-27T22:10:00Z')
    await answer('ada@reports.example', c1.caseID)
    // c2 (Billing): opened 00:30 CET the 28th (UTC: the 27th), answered by Bob after 20 minutes,
    // closed after 120 (across the change to summer time), rated 3.
    at('2027-03-27T23:10:00Z')
    await close('ada@reports.example', c1.caseID)
    at('2027-03-27T23:20:00Z')
    await rate('v1', c1.caseID, 5)
    at('2027-03-27T23:30:00Z')
    const c2 = await openCase(await visitor('v2'), 'invoice wrong', billing)
    at('2027-03-27T23:50:00Z')
    await answer('bob@reports.example', c2.caseID)
    at('2027-03-28T01:30:00Z')
    await close('bob@reports.example', c2.caseID)
    at('2027-03-28T01:40:00Z')
    await rate('v2', c2.caseID, 3)
    // c3 (General): answered after 40 minutes, closed 00:30 CEST the 29th (UTC: the 28th), rated 4.
    at('2027-03-28T02:00:00Z')
    const c3 = await openCase(await visitor('v3'), 'my password', general)
    at('2027-03-28T02:40:00Z')
    await answer('ada@reports.example', c3.caseID)
    at('2027-03-28T22:30:00Z')
    await close('ada@reports.example', c3.caseID)
    at('2027-03-28T22:40:00Z')
    await rate('v3', c3.caseID, 4)
    // c4 (Billing): 00:45 CEST the 29th (UTC: the 28th); nobody has answered it yet.
    at('2027-03-28T22:45:00Z')
    await openCase(await visitor('v4'), 'refund please', billing)
    Object.assign(ids, { c0: c0.caseID, c1: c1.caseID, c2: c2.caseID, c3: c3.caseID })
  })

  const report = async (email: string, body: Record<string, unknown>) => {
    const reply = await (await as(email))('/report/get', body)
    expect(reply.status, reply.text).toBe(200)
    return reply.json.data
  }
  const figures = (
    [opened, handedOver, firstResponses, firstResponseMedian, closed, resolutionMedian]: (number | null)[],
    ratings: number[] = [],
  ) => ({
    opened,
    handedOver,
    firstResponses,
    firstResponseMedian,
    closed,
    resolutionMedian,
    ratings: ratings.length,
    ratingAverage: ratings.length ? ratings.reduce((a, b) => a + b, 0) / ratings.length : null,
    ratingDistribution: [1, 2, 3, 4, 5].map((n) => ratings.filter((r) => r === n).length),
  })
  const range = { from: '2027-03-27', to: '2027-03-29' }

  test('the handover and the first response are recorded on the case, once', async () => {
    const rows = await server()
      .testDatabase.database.db.selectFrom('cases')
      .select(['id', 'created', 'handed_over_at', 'first_response_at'])
      .where('id', 'in', [ids.c0 as string, ids.c1 as string])
      .orderBy('created')
      .execute()
    expect(
      rows.map((r) => [Number(r.handed_over_at) - Number(r.created), Number(r.first_response_at)]),
    ).toEqual([
      [30 * MIN, Date.parse('2027-03-27T21:35:00Z')],
      [0, Date.parse('2027-03-27T22:10:00Z')],
    ])
  })

  test('by local day in Europe/Berlin: the summer-time night is one day of 23 hours', async () => {
    const data = await report('boss@reports.example', { ...range, timeZone: 'Europe/Berlin', by: 'day' })
    expect(data.rows).toEqual([
      { key: '2027-03-27', label: '2027-03-27', ...figures([2, 2, 2, 7.5 * MIN, 0, null]) },
      { key: '2027-03-28', label: '2027-03-28', ...figures([2, 2, 2, 30 * MIN, 2, 95 * MIN], [5, 3]) },
      { key: '2027-03-29', label: '2027-03-29', ...figures([1, 1, 0, null, 1, 1230 * MIN], [4]) },
    ])
    expect(data.totals).toEqual(figures([5, 5, 4, 15 * MIN, 3, 120 * MIN], [5, 3, 4]))
    byDay.set(dialect, data)
    if (byDay.size === 2) expect(byDay.get('postgres')).toEqual(byDay.get('sqlite'))
  })

  test('by day in UTC (the default), the same cases fall on other days', async () => {
    const data = await report('boss@reports.example', range)
    expect(data.timeZone).toBe('UTC')
    expect(data.rows).toEqual([
      { key: '2027-03-27', label: '2027-03-27', ...figures([3, 3, 3, 10 * MIN, 1, 70 * MIN], [5]) },
      { key: '2027-03-28', label: '2027-03-28', ...figures([2, 2, 1, 40 * MIN, 2, 675 * MIN], [3, 4]) },
      { key: '2027-03-29', label: '2027-03-29', ...figures([0, 0, 0, null, 0, null]) },
    ])
    // One day alone, and a filter by topic.
    const one = await report('boss@reports.example', {
      from: '2027-03-28',
      to: '2027-03-28',
      topicID: billing,
    })
    expect(one.rows).toEqual([
      { key: '2027-03-28', label: '2027-03-28', ...figures([1, 1, 0, null, 1, 120 * MIN], [3]) },
    ])
  })

  test('by topic and by agent (the agent holding the case; cases nobody holds last)', async () => {
    const berlin = { ...range, timeZone: 'Europe/Berlin' }
    const topics = await report('boss@reports.example', { ...berlin, by: 'topic' })
    expect(topics.rows).toEqual([
      { key: String(billing), label: 'Billing', ...figures([2, 2, 1, 20 * MIN, 1, 120 * MIN], [3]) },
      { key: String(general), label: 'General', ...figures([3, 3, 3, 10 * MIN, 2, 650 * MIN], [5, 4]) },
    ])
    const agents = await report('boss@reports.example', { ...berlin, by: 'agent' })
    expect(agents.rows).toEqual([
      { key: ids.ada, label: 'ada@reports.example', ...figures([3, 3, 3, 10 * MIN, 2, 650 * MIN], [5, 4]) },
      { key: ids.bob, label: 'bob@reports.example', ...figures([1, 1, 1, 20 * MIN, 1, 120 * MIN], [3]) },
      { key: '', label: '', ...figures([1, 1, 0, null, 0, null]) },
    ])
    expect(agents.totals).toEqual(topics.totals)
  })

  test('an agent sees the figures of their own cases only', async () => {
    const mine = await report('ada@reports.example', { ...range, timeZone: 'Europe/Berlin', by: 'agent' })
    expect(mine.rows.map((r: { key: string }) => r.key)).toEqual([ids.ada])
    expect(mine.totals).toEqual(figures([3, 3, 3, 10 * MIN, 2, 650 * MIN], [5, 4]))
    const call = await as('ada@reports.example')
    const theirs = await call('/report/get', { ...range, agentAccountID: ids.bob })
    expect(theirs.json.error.code).toBe('40301')
    const bobs = await report('boss@reports.example', { ...range, agentAccountID: ids.bob })
    expect(bobs.totals.opened).toBe(1)
  })

  test('bad input is the documented validation error, never a 500', async () => {
    const call = await as('boss@reports.example')
    const cases: [Record<string, unknown>, string, string][] = [
      [{ to: '2027-01-01' }, 'from', "Param 'from' is required"],
      [{ from: '2027-02-30', to: '2027-03-01' }, 'from', "Param 'from' must be a date (YYYY-MM-DD)"],
      [{ from: '2027-1-1', to: '2027-03-01' }, 'from', "Param 'from' must be a date (YYYY-MM-DD)"],
      [{ from: 20270101, to: '2027-03-01' }, 'from', "Param 'from' must be a string"],
      [{ from: '2027-03-02', to: '2027-03-01' }, 'to', "Param 'to' must not be before 'from'"],
      [
        { from: '2026-01-01', to: '2027-01-02' },
        'to',
        "Param 'to' must be at most 366 days from 'from' (both included)",
      ],
      [
        { ...range, timeZone: 'Mars/Olympus' },
        'timeZone',
        "Param 'timeZone' must be an IANA time zone (such as Europe/Berlin)",
      ],
      [{ ...range, timeZone: 'Europe/Berlin\u0000' }, 'timeZone', "Param 'timeZone' is invalid"],
      [{ ...range, timeZone: '\ud800' }, 'timeZone', "Param 'timeZone' is invalid"],
      [
        { ...range, timeZone: 'x'.repeat(100_000) },
        'timeZone',
        "Param 'timeZone' must be at most 64 characters",
      ],
      [{ from: '\u00002027-01-01', to: '2027-01-02' }, 'from', "Param 'from' is invalid"],
      [{ ...range, by: 'week' }, 'by', "Param 'by' must be one of: day, topic, agent"],
      [
        { ...range, topicID: -1 },
        'topicID',
        `Param 'topicID' must be between 0 and ${Number.MAX_SAFE_INTEGER}`,
      ],
    ]
    for (const [body, field, message] of cases) {
      const reply = await call('/report/get', body)
      expect([reply.status, reply.json.error], JSON.stringify(body).slice(0, 80)).toEqual([
        400,
        { code: '40002', message, field },
      ])
    }
    // The longest range is fine: 2028 has 366 days.
    const year = await report('boss@reports.example', {
      from: '2028-01-01',
      to: '2028-12-31',
      timeZone: 'Asia/Kathmandu',
    })
    expect(year.rows).toHaveLength(366)
  })
})
