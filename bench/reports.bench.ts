import { join } from 'node:path'
import { type Insertable, sql } from 'kysely'
import pg from 'pg'
import { Reports } from '../src/domain/reports/reports.js'
import { repositories } from '../src/domain/repositories.js'
import { systemClock } from '../src/lib/clock.js'
import { createServices } from '../src/services.js'
import { type Database, migrate, openDatabase } from '../src/storage/database.js'
import type { CasesTable } from '../src/storage/schema.js'
import { testFileStorage } from '../test/support/files.js'

// BENCH_ONLY=reports: support reports (agent API report/get, measured in-process at the service,
// without HTTP) over a year of one organization's cases (200,000 by default: BENCH_REPORT_CASES),
// 6 topics, 20 agents, on SQLite and PostgreSQL, for the whole year by day, topic and agent, of a
// topic, of an agent, as an agent (their own cases), by another instance (the days stored in
// report_days, none in its memory), and a month (in Europe/Berlin); and once the first year by day
// after the days stored were dropped. The seeded database is kept and reused by later runs: SQLite
// in data/bench-reports/ (delete it to seed anew), PostgreSQL in the database parley_bench_reports.

const CASES = Number(process.env.BENCH_REPORT_CASES ?? 200_000)
const ORG = 'bench-reports-org'
const TOPICS = 6
const AGENTS = 20
const VISITORS = 2000
const YEAR_START = Date.UTC(2025, 0, 1)
const YEAR_MS = 365 * 86_400_000
const MIN = 60_000
const RUNS = Number(process.env.BENCH_REPORT_RUNS ?? 20)

function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

async function seed(database: Database): Promise<void> {
  const { db } = database
  const now = YEAR_START
  await db.deleteFrom('organizations').where('id', '=', ORG).execute()
  await db
    .insertInto('organizations')
    .values({ id: ORG, name: 'seeding', created: now, updated: now })
    .execute()
  const topics: number[] = []
  for (let t = 0; t < TOPICS; t++) {
    const topic = {
      organization_id: ORG,
      name: `Topic ${t}`,
      is_default: t === 0 ? 1 : 0,
      created: now,
      updated: now,
    }
    await db.insertInto('topics').values(topic).execute()
  }
  for (const row of await db.selectFrom('topics').select('id').where('organization_id', '=', ORG).execute())
    topics.push(row.id)
  const users = Array.from({ length: VISITORS }, (_, i) => ({
    id: `bench-reports-user-${i}`,
    organization_id: ORG,
    xc_user_id: `visitor-${i}`,
    full_name: `Visitor ${i}`,
    created: now,
    updated: now,
  }))
  for (let i = 0; i < users.length; i += 500)
    await db
      .insertInto('users')
      .values(users.slice(i, i + 500))
      .execute()
  const next = random(8)
  const between = (low: number, high: number) => low + Math.floor(next() * (high - low))
  const BATCH = 500
  for (let from = 0; from < CASES; from += BATCH) {
    const cases: Insertable<CasesTable>[] = []
    for (let c = from; c < Math.min(CASES, from + BATCH); c++) {
      const created = YEAR_START + Math.floor((c / CASES) * YEAR_MS) + between(0, MIN)
      const handedOver = next() < 0.9 ? created + between(0, 10 * MIN) : null
      const answered = handedOver !== null && next() < 0.95 ? handedOver + between(10_000, 30 * MIN) : null
      const closed = next() < 0.9 ? created + between(5 * MIN, 3 * 1440 * MIN) : null
      const rated = closed !== null && next() < 0.4 ? closed + between(0, 60 * MIN) : null
      const agent = handedOver === null ? null : `bench-agent-${between(0, AGENTS)}`
      cases.push({
        id: `R${c.toString(16).toUpperCase().padStart(9, '0')}`,
        organization_id: ORG,
        user_id: `bench-reports-user-${c % VISITORS}`,
        topic_id: topics[c % TOPICS] as number,
        status: closed !== null ? 'closed' : agent ? 'assigned' : 'bot',
        agent_account_id: agent,
        room_id: `bench-reports-room-${c}`,
        first_message: 'help',
        created,
        updated: created,
        closed_time: closed,
        closed_by: closed === null ? null : 'agent',
        rating: rated === null ? null : between(1, 6),
        rated_at: rated,
        handed_over_at: handedOver,
        first_response_at: answered,
      })
    }
    await db.transaction().execute(async (trx) => {
      const rooms = cases.map((c) => ({
        id: c.room_id as string,
        organization_id: ORG,
        type: 3,
        name: '',
        image_url: '',
        created: c.created as number,
        updated: c.created as number,
      }))
      await trx.insertInto('rooms').values(rooms).execute()
      await trx.insertInto('cases').values(cases).execute()
    })
  }
  await db.updateTable('organizations').set({ name: 'seeded' }).where('id', '=', ORG).execute()
}

async function postgresDatabase(serverURL: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverURL })
  await admin.connect()
  const exists = await admin.query(`select 1 from pg_database where datname = 'parley_bench_reports'`)
  if (exists.rowCount === 0) await admin.query('create database parley_bench_reports')
  await admin.end()
  const url = new URL(serverURL)
  url.pathname = '/parley_bench_reports'
  return url.toString()
}

export interface ReportFiguresBench {
  name: string
  seedSeconds: number | null
  /** The first year by day after the stored days were dropped (ms). */
  cold: number
  groupings: { by: string; p50: number; p99: number; rows: number }[]
}

/** The third topic (any will do). */
const topics = (rows: { id: number }[]) => (rows[2] as { id: number }).id

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0

export async function benchReports(name: string, postgresServerURL?: string): Promise<ReportFiguresBench> {
  const databaseURL = postgresServerURL ? await postgresDatabase(postgresServerURL) : undefined
  const database = openDatabase({ databaseURL, dataDir: join('data', 'bench-reports') })
  await migrate(database)
  const marker = await database.db
    .selectFrom('organizations')
    .select('name')
    .where('id', '=', ORG)
    .executeTakeFirst()
  let seedSeconds: number | null = null
  if (marker?.name !== 'seeded') {
    console.log(`${name}: seeding ${CASES} cases over a year (kept for later runs)…`)
    const started = performance.now()
    await seed(database)
    seedSeconds = (performance.now() - started) / 1000
  }
  // As autovacuum keeps a live database: statistics, and (PostgreSQL) the visibility map that lets
  // the covering indexes answer without visiting the table.
  await sql.raw(databaseURL ? 'vacuum analyze' : 'analyze').execute(database.db)
  const services = createServices({
    database,
    clock: systemClock,
    masterKey: Buffer.alloc(32, 7),
    publicURL: 'http://127.0.0.1',
    files: testFileStorage(join('data', 'bench-reports')),
  })
  const admin = { agentAccountID: 'bench-admin', organizationID: ORG, role: 'admin' as const }
  const agent = { agentAccountID: 'bench-agent-3', organizationID: ORG, role: 'agent' as const }
  const groupings: ReportFiguresBench['groupings'] = []
  const year = { from: '2025-01-01', to: '2026-01-01' }
  const month = { from: '2025-12-02', to: '2025-12-31' }
  const topicID = topics(
    await database.db.selectFrom('topics').select('id').where('organization_id', '=', ORG).execute(),
  )
  const requests: {
    label: string
    from: string
    to: string
    by: 'day' | 'topic' | 'agent'
    topicID?: number
    agentAccountID?: string
    as?: typeof agent
    /** A new instance each time: nothing in its memory. */
    fresh?: boolean
  }[] = [
    ...(['day', 'topic', 'agent'] as const).map((by) => ({ label: `366 days by ${by}`, ...year, by })),
    { label: '366 days, a topic', ...year, by: 'day' as const, topicID },
    { label: '366 days, an agent', ...year, by: 'day' as const, agentAccountID: 'bench-agent-7' },
    { label: '366 days as agent', ...year, by: 'day' as const, as: agent },
    { label: '366 days, new instance', ...year, by: 'day' as const, fresh: true },
    { label: '30 days by day', ...month, by: 'day' as const },
  ]
  // The first report after the stored days are dropped reads them from the cases (and stores them).
  await database.db.deleteFrom('report_days').where('organization_id', '=', ORG).execute()
  const started = performance.now()
  await services.reports.report(admin, { ...year, by: 'day', timeZone: 'Europe/Berlin' })
  const cold = performance.now() - started
  for (const { label, as, fresh, ...range } of requests) {
    const request = { ...range, timeZone: 'Europe/Berlin' }
    const who = as ?? admin
    const reports = () =>
      fresh ? new Reports({ database, clock: systemClock, repositories }) : services.reports
    for (let i = 0; i < 3; i++) await reports().report(who, request)
    const times: number[] = []
    let rows = 0
    for (let i = 0; i < RUNS; i++) {
      const instance = reports()
      const started = performance.now()
      rows = (await instance.report(who, request)).rows.length
      times.push(performance.now() - started)
    }
    times.sort((a, b) => a - b)
    groupings.push({ by: label, p50: percentile(times, 50), p99: percentile(times, 99), rows })
  }
  await database.close()
  return { name, seedSeconds, cold, groupings }
}

export function printReports(rows: ReportFiguresBench[]): void {
  console.log(
    `\nReports: ${CASES} cases over a year, report/get (${RUNS} runs each; in-process, Europe/Berlin)`,
  )
  for (const row of rows) {
    const seeded = row.seedSeconds === null ? 'seeded earlier' : `seeded in ${row.seedSeconds.toFixed(0)} s`
    console.log(`${row.name} (${seeded}; first year by day, nothing stored yet: ${row.cold.toFixed(0)} ms)`)
    for (const g of row.groupings)
      console.log(
        `  ${g.by.padEnd(18)} p50 ${g.p50.toFixed(1).padStart(7)} ms  p99 ${g.p99.toFixed(1).padStart(7)} ms  ${g.rows} rows`,
      )
  }
}
