import { type Insertable, sql } from 'kysely'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { markFirstResponse, moveCase, rateCase } from '../../src/domain/cases/cases.repository.js'
import { packDay } from '../../src/domain/reports/day-events.js'
import type { ReportRequest } from '../../src/domain/reports/reports.js'
import { storeDays } from '../../src/domain/reports/reports.repository.js'
import { ManualClock } from '../../src/lib/clock.js'
import { createServices } from '../../src/services.js'
import type { Database } from '../../src/storage/database.js'
import type { CasesTable } from '../../src/storage/schema.js'
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../support/databases.js'
import { testFileStorage } from '../support/files.js'
import { referenceReport } from '../support/report-reference.js'

// Reports from stored days (report_days, docs/reference/agent-api.md, "Reports"): seeded random cases over five weeks
// across the spring DST changes of New York (2026-03-08), Berlin (03-29) and Lord Howe (04-05, half
// an hour), with events at local and UTC midnights; every report, by day, topic and agent, with
// filters and as an agent, equals a plain computation from the cases; and once days are stored, a
// case changed afterwards (reopened, rated again, answered late, closed late, moved to another
// agent or topic, deleted) by another instance shows in the next report.

const ORG = 'days-org'
const MIN = 60_000
const DAY = 86_400_000
const START = Date.UTC(2026, 2, 1)
const NOW = Date.parse('2026-04-08T12:00:00Z')
const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'UTC']
const AGENTS = ['agent-1', 'agent-2', 'agent-3']
/** Instants some zone's day starts or ends at, around the DST changes. */
const EDGES = [
  '2026-03-08T05:00:00Z', // New York midnight after the change (EDT)
  '2026-03-29T22:00:00Z', // Berlin midnight after the change (CEST)
  '2026-03-28T23:00:00Z', // Berlin midnight before it (CET)
  '2026-04-04T13:00:00Z', // Lord Howe midnight before its change (+11)
  '2026-04-05T13:30:00Z', // and after (+10:30)
  '2026-03-15T00:00:00Z', // UTC
].flatMap((iso) => [Date.parse(iso) - 1, Date.parse(iso)])

function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

describeEachDatabase('reports from stored days', (dialect) => {
  let testDatabase: TestDatabase
  /** A second instance on the same database. */
  let other: Database
  let topics: number[]
  const clock = new ManualClock(NOW)
  const admin = { agentAccountID: 'admin', organizationID: ORG, role: 'admin' as const }
  const agent = { agentAccountID: 'agent-2', organizationID: ORG, role: 'agent' as const }

  beforeAll(async () => {
    testDatabase = await createTestDatabase(dialect)
    other = testDatabase.reopen()
    // One instance throughout, so it also answers from the days it keeps in memory.
    reports = services().reports
    const { db } = testDatabase.database
    await db
      .insertInto('organizations')
      .values({ id: ORG, name: 'Days', created: START, updated: START })
      .execute()
    for (const name of ['Billing', 'Shipping', 'Other'])
      await db
        .insertInto('topics')
        .values({ organization_id: ORG, name, created: START, updated: START })
        .execute()
    topics = (await db.selectFrom('topics').select('id').where('organization_id', '=', ORG).execute()).map(
      (row) => row.id,
    )
    await db
      .insertInto('users')
      .values({
        id: 'days-user',
        organization_id: ORG,
        xc_user_id: 'v',
        full_name: 'V',
        created: START,
        updated: START,
      })
      .execute()
    const next = random(18)
    const between = (low: number, high: number) => low + Math.floor(next() * (high - low))
    const cases: Insertable<CasesTable>[] = []
    for (let i = 0; i < 700; i++) {
      // Some events exactly at (or 1 ms before) a day's edge; minutes otherwise, so medians tie.
      const created = i < EDGES.length ? (EDGES[i] as number) : START + between(0, 40 * 24 * 60) * MIN
      const handed = next() < 0.85 ? created + (i % 9 === 0 ? 0 : between(0, 20) * MIN) : null
      const answered = handed !== null && next() < 0.8 ? handed + between(-2, 40) * MIN : null
      const closed =
        i >= EDGES.length && i < 2 * EDGES.length
          ? (EDGES[i - EDGES.length] as number)
          : next() < 0.8
            ? created + between(1, 4 * 1440) * MIN
            : null
      const rated =
        closed !== null && closed >= created && next() < 0.5 ? closed + between(0, 600) * MIN : null
      cases.push({
        id: `D${String(i).padStart(9, '0')}`,
        organization_id: ORG,
        user_id: 'days-user',
        topic_id: topics[i % 3] as number,
        status: closed !== null ? 'closed' : handed !== null ? 'assigned' : 'bot',
        agent_account_id: handed === null || next() < 0.1 ? null : (AGENTS[between(0, 3)] as string),
        room_id: `days-room-${i}`,
        first_message: 'hi',
        created,
        updated: created,
        closed_time: closed,
        closed_by: closed === null ? null : 'agent',
        rating: rated === null ? null : between(1, 6),
        rated_at: rated,
        handed_over_at: handed,
        first_response_at: answered,
      })
    }
    for (let i = 0; i < cases.length; i += 100) {
      const batch = cases.slice(i, i + 100)
      const rooms = batch.map((c) => ({
        id: c.room_id,
        organization_id: ORG,
        type: 3,
        name: '',
        image_url: '',
        created: START,
        updated: START,
      }))
      await db.insertInto('rooms').values(rooms).execute()
      await db.insertInto('cases').values(batch).execute()
    }
  })
  afterAll(async () => {
    await other?.close()
    await testDatabase?.drop()
  })

  let reports: ReturnType<typeof createServices>['reports']
  const services = () =>
    createServices({
      database: testDatabase.database,
      clock,
      masterKey: testDatabase.masterKey,
      publicURL: 'http://127.0.0.1',
      files: testFileStorage(testDatabase.dataDir),
    })
  const rows = () =>
    testDatabase.database.db.selectFrom('cases').selectAll().where('organization_id', '=', ORG).execute()
  const storedDays = async () =>
    (
      await testDatabase.database.db
        .selectFrom('report_days')
        .select(['day', 'version'])
        .where('organization_id', '=', ORG)
        .where('events', 'is not', null)
        .orderBy('day')
        .execute()
    ).map((row) => ({ day: Number(row.day), version: Number(row.version) }))

  /** Every report of the requests equals the reference computed from the cases as they are now. */
  async function expectReports(requests: ReportRequest[]) {
    const cases = await rows()
    const labels = new Map(topics.map((id, i) => [String(id), ['Billing', 'Shipping', 'Other'][i] as string]))
    for (const request of requests)
      for (const viewer of [admin, agent]) {
        // An agent may not ask for another agent's cases (reports.test.ts).
        if (viewer === agent && request.agentAccountID !== undefined) continue
        const report = await reports.report(viewer, request)
        const expected = referenceReport(cases, request, viewer, labels)
        expect({ rows: report.rows, totals: report.totals }, JSON.stringify({ request, viewer })).toEqual(
          expected,
        )
      }
  }
  const requestsOf = (from: string, to: string): ReportRequest[] =>
    ZONES.flatMap((timeZone) =>
      (['day', 'topic', 'agent'] as const).flatMap((by) => [
        { from, to, timeZone, by },
        { from, to, timeZone, by, topicID: topics[1] },
        { from, to, timeZone, by, agentAccountID: 'agent-3' },
      ]),
    )

  test('are what the cases say, in every zone, grouping and filter; finished days are stored', async () => {
    await expectReports(requestsOf('2026-02-27', '2026-04-12'))
    const stored = await storedDays()
    // Every UTC day from the first reported to yesterday (the clock's): none of today or later.
    const [first, today] = [Math.floor(Date.parse('2026-02-26T09:15:00Z') / DAY), Math.floor(NOW / DAY)]
    expect(stored.map((row) => row.day)).toEqual(Array.from({ length: today - first }, (_, i) => first + i))
    // Read again from the stored days: the same.
    await expectReports(requestsOf('2026-03-05', '2026-04-09'))
  }, 90_000) // every zone × grouping × filter × viewer, twice, each against a reference: CPU-bound

  test('show a change made by another instance to a case of a stored day in the next report', async () => {
    await expectReports(requestsOf('2026-03-01', '2026-04-08').slice(0, 3))
    const before = new Map((await storedDays()).map((row) => [row.day, row.version]))
    const { db } = other
    const cases = await rows()
    const closedEarly = cases.filter((c) => c.closed_time !== null && c.closed_time < NOW - 5 * DAY)
    const rated = closedEarly.filter((c) => c.rating !== null)
    const unanswered = cases.filter(
      (c) => c.handed_over_at !== null && c.first_response_at === null && c.closed_time === null,
    )
    const open = cases.filter(
      (c) => c.closed_time === null && c.agent_account_id !== null && c.first_response_at !== null,
    )
    const pick = (c: (typeof cases)[number] | undefined) => {
      if (!c) throw new Error('the seeded cases lack one to change')
      return c
    }
    const reopened = pick(closedEarly[0])
    const rerated = pick(rated.at(-1))
    const late = pick(unanswered[0])
    const closedLate = pick(open[0])
    const moved = pick(open[1])
    const retopiced = pick(closedEarly[3])
    const deleted = pick(closedEarly[4])
    const now = clock.now()
    await moveCase(db, reopened.id, 'closed', { status: 'assigned', closed_time: null, closed_by: null })
    await rateCase(db, rerated.id, { rating: rerated.rating === 5 ? 1 : 5, note: '', now })
    await markFirstResponse(db, late.id, now)
    await moveCase(db, closedLate.id, 'assigned', { status: 'closed', closed_time: now, closed_by: 'agent' })
    await moveCase(db, moved.id, 'assigned', {
      agent_account_id: moved.agent_account_id === 'agent-2' ? 'agent-1' : 'agent-2',
    })
    await db
      .updateTable('cases')
      .set({ topic_id: topics[(topics.indexOf(retopiced.topic_id) + 1) % 3] as number })
      .where('id', '=', retopiced.id)
      .execute()
    await db.deleteFrom('cases').where('id', '=', deleted.id).execute()
    // The days of their events are no longer stored (their version moved on).
    const dropped = new Set((await storedDays()).map((row) => row.day))
    for (const c of [reopened, rerated, late, moved, retopiced, deleted])
      expect(dropped.has(Math.floor(c.created / DAY))).toBe(false)
    expect(before.has(Math.floor((reopened.closed_time as number) / DAY))).toBe(true)
    await expectReports(requestsOf('2026-02-27', '2026-04-12'))
  }, 90_000) // like the test above, hundreds of reports against a reference

  test('do not store a day read before a change made while reading it', async () => {
    const { db } = testDatabase.database
    const c = (await rows()).find(
      (row) => row.closed_time !== null && row.closed_time < NOW - 3 * DAY,
    ) as Awaited<ReturnType<typeof rows>>[number]
    const day = Math.floor(c.created / DAY)
    await expectReports([{ from: '2026-03-01', to: '2026-04-07', timeZone: 'UTC', by: 'day' }])
    const read = await db
      .selectFrom('report_days')
      .select('version')
      .where('organization_id', '=', ORG)
      .where('day', '=', day)
      .executeTakeFirstOrThrow()
    // Meanwhile another instance reopens the case; the report then stores what it read before.
    await moveCase(other.db, c.id, 'closed', { status: 'assigned', closed_time: null, closed_by: null })
    await storeDays(testDatabase.database, ORG, [
      { day, version: Number(read.version), events: packDay(day * DAY, []) },
    ])
    const after = await sql<{
      events: unknown
    }>`select events from report_days where organization_id = ${ORG} and day = ${day}`.execute(db)
    expect(after.rows[0]?.events).toBeNull()
    await expectReports([{ from: '2026-03-01', to: '2026-04-07', timeZone: 'Europe/Berlin', by: 'agent' }])
  })
})
