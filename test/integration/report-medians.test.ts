import type { Insertable } from 'kysely'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { ManualClock } from '../../src/lib/clock.js'
import { createServices } from '../../src/services.js'
import type { CasesTable } from '../../src/storage/schema.js'
import {
  createTestDatabase,
  type DialectName,
  describeEachDatabase,
  type TestDatabase,
} from '../support/databases.js'
import { testFileStorage } from '../support/files.js'

// Report medians (docs/reference/agent-api.md, "Reports") over many cases stored directly: durations of every size, so
// the middle ones fall in every band, at band edges and across two bands, also negative ones (a
// clock stepped back); exactly the medians JavaScript computes, the same on both databases.

const ORG = 'median-org'
const DAY = 86_400_000
const START = Date.UTC(2026, 5, 1)
const answers = new Map<DialectName, unknown>()

/** A deterministic random number in [0, 1). */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

const median = (values: number[]) => {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const middle = [Math.floor((sorted.length + 1) / 2), Math.floor((sorted.length + 2) / 2)]
  return ((sorted[(middle[0] as number) - 1] as number) + (sorted[(middle[1] as number) - 1] as number)) / 2
}

describeEachDatabase('report medians', (dialect) => {
  let testDatabase: TestDatabase
  const expected = { days: [0, 1, 2].map((): number[][] => [[], []]), total: [[], []] as number[][] }

  beforeAll(async () => {
    testDatabase = await createTestDatabase(dialect)
    const { db } = testDatabase.database
    await db
      .insertInto('organizations')
      .values({ id: ORG, name: 'Medians', created: START, updated: START })
      .execute()
    await db
      .insertInto('topics')
      .values({ organization_id: ORG, name: 'General', created: START, updated: START })
      .execute()
    const topic = await db
      .selectFrom('topics')
      .select('id')
      .where('organization_id', '=', ORG)
      .executeTakeFirstOrThrow()
    await db
      .insertInto('users')
      .values({
        id: 'median-user',
        organization_id: ORG,
        xc_user_id: 'v',
        full_name: 'V',
        created: START,
        updated: START,
      })
      .execute()
    const next = random(42)
    // Sizes from 0 to 10^11 ms, many at the edges of bands (10^n, 2·10^n, …), a few negative.
    const duration = () => {
      const pick = next()
      if (pick < 0.03) return -Math.floor(next() * 5000)
      if (pick < 0.3) return Math.floor(next() * 10) * 10 ** Math.floor(next() * 9)
      return Math.floor(10 ** (next() * 11))
    }
    const cases: Insertable<CasesTable>[] = []
    for (let i = 0; i < 901; i++) {
      const day = i % 3
      const created = START + day * DAY + 3_600_000 + i * 1000
      const response = i % 7 === 0 ? null : duration()
      const resolution = duration()
      const closed = created + 3600_000 // closed the same day, whatever the resolution says
      if (response !== null) expected.days[day]?.[0]?.push(response)
      expected.days[day]?.[1]?.push(resolution)
      cases.push({
        id: `M${String(i).padStart(9, '0')}`,
        organization_id: ORG,
        user_id: 'median-user',
        topic_id: topic.id,
        status: 'closed',
        room_id: `median-room-${i}`,
        first_message: 'm',
        created: closed - resolution,
        updated: closed,
        closed_time: closed,
        closed_by: 'agent',
        handed_over_at: created,
        first_response_at: response === null ? null : created + response,
      })
    }
    for (const day of expected.days)
      for (const kind of [0, 1]) expected.total[kind]?.push(...(day[kind] as number[]))
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
    await testDatabase?.drop()
  })

  test('are the middle durations, by day and in total, on every database alike', async () => {
    const services = createServices({
      database: testDatabase.database,
      clock: new ManualClock(START),
      masterKey: testDatabase.masterKey,
      publicURL: 'http://127.0.0.1',
      files: testFileStorage(testDatabase.dataDir),
    })
    const admin = { agentAccountID: 'a', organizationID: ORG, role: 'admin' as const }
    const report = await services.reports.report(admin, {
      from: '2026-06-01',
      to: '2026-06-03',
      timeZone: 'UTC',
      by: 'day',
    })
    expect(report.rows.map((row) => [row.firstResponseMedian, row.resolutionMedian])).toEqual(
      expected.days.map((day) => [median(day[0] as number[]), median(day[1] as number[])]),
    )
    expect([report.totals.firstResponseMedian, report.totals.resolutionMedian]).toEqual(
      expected.total.map((values) => median(values)),
    )
    expect(report.totals.firstResponses).toBe(expected.total[0]?.length)
    answers.set(dialect, report)
    if (answers.size === 2) expect(answers.get('postgres')).toEqual(answers.get('sqlite'))
  })
})
