import { join } from 'node:path'
import pg from 'pg'
import { systemClock } from '../src/lib/clock.js'
import { indexedText } from '../src/lib/search-words.js'
import { createServices } from '../src/services.js'
import { DATABASE_FILE } from '../src/storage/data-dir.js'
import { migrate, openDatabase } from '../src/storage/database.js'
import { loadSqlite } from '../src/storage/sqlite-driver.js'
import { testFileStorage } from '../test/support/files.js'

const SQLite = loadSqlite()

// BENCH_ONLY=search: the case search (agent API case/search, measured in-process at the service,
// without HTTP) over 1,000,000 messages in 20,000 cases of one organization, on SQLite and on
// PostgreSQL. Seeding takes minutes, so the seeded database is kept and reused by later runs:
// SQLite in data/bench-search/ (delete it to seed anew), PostgreSQL in the database
// parley_bench_search of the benchmark's server (drop it to seed anew).

const CASES = Number(process.env.BENCH_SEARCH_CASES ?? 20_000)
const PER_CASE = 50
const VISITORS = 5000
const VOCABULARY = 10_000
const WORDS_PER_MESSAGE = 8
const ORG = 'bench-search-org'
const T0 = 1_700_000_000_000

/** A deterministic random number in [0, 1). */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

/** Word ranks drawn by Zipf's law (rank 1 in about 10% of draws): words of every frequency. */
function zipf(next: () => number): () => number {
  const cumulative: number[] = []
  let sum = 0
  for (let rank = 1; rank <= VOCABULARY; rank++) {
    sum += 1 / rank
    cumulative.push(sum)
  }
  return () => {
    const target = next() * sum
    let low = 0
    let high = cumulative.length - 1
    while (low < high) {
      const mid = (low + high) >> 1
      if ((cumulative[mid] as number) < target) low = mid + 1
      else high = mid
    }
    return low + 1
  }
}

const word = (rank: number) => `w${rank.toString(36)}x`

interface SeedCase {
  id: string
  room: string
  user: string
  status: string
  agent: string | null
  created: number
  messages: { id: string; sender: string; body: string; created: number }[]
}

function* seedCases(): Generator<SeedCase[]> {
  const next = random(18)
  const rank = zipf(next)
  let batch: SeedCase[] = []
  for (let c = 0; c < CASES; c++) {
    const created = T0 + c * 60_000
    const user = String(300_000_000_000_000 + (c % VISITORS))
    const status = c % 10 === 0 ? 'queued' : c % 10 === 1 ? 'assigned' : 'closed'
    const agent = status === 'queued' ? null : `agent-${c % 10}`
    const messages = Array.from({ length: PER_CASE }, (_, k) => ({
      id: String(100_000_000_000_000 + c * PER_CASE + k),
      sender: k % 2 === 0 || !agent ? user : `agent:${agent}`,
      body: Array.from({ length: WORDS_PER_MESSAGE }, () => word(rank())).join(' '),
      created: created + k * 1000,
    }))
    const id = c.toString(16).toUpperCase().padStart(10, '0')
    batch.push({ id, room: String(200_000_000_000_000 + c), user, status, agent, created, messages })
    if (batch.length === 500) {
      yield batch
      batch = []
    }
  }
  if (batch.length > 0) yield batch
}

async function seeded(database: ReturnType<typeof openDatabase>): Promise<boolean> {
  const row = await database.db
    .selectFrom('organizations')
    .select('name')
    .where('id', '=', ORG)
    .executeTakeFirst()
  return row?.name === 'seeded'
}

async function prepareBase(database: ReturnType<typeof openDatabase>) {
  const { db } = database
  await db
    .insertInto('organizations')
    .values({ id: ORG, name: 'seeding', created: T0, updated: T0 })
    .execute()
  await db
    .insertInto('topics')
    .values({ organization_id: ORG, name: 'General', is_default: 1, created: T0, updated: T0 })
    .execute()
  const topic = await db
    .selectFrom('topics')
    .select('id')
    .where('organization_id', '=', ORG)
    .executeTakeFirstOrThrow()
  for (let from = 0; from < VISITORS; from += 1000) {
    const users = Array.from({ length: Math.min(1000, VISITORS - from) }, (_, i) => ({
      id: String(300_000_000_000_000 + from + i),
      organization_id: ORG,
      xc_user_id: `visitor-${from + i}`,
      full_name: `Visitor ${from + i} Lovelace`,
      email: `visitor${from + i}@mail.example`,
      created: T0,
      updated: T0,
    }))
    await db.insertInto('users').values(users).execute()
  }
  return topic.id
}

async function seedSQLite(dataDir: string, topicID: number) {
  const sqlite = new SQLite(join(dataDir, DATABASE_FILE))
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = OFF')
  const room =
    sqlite.prepare(`insert into rooms (id, organization_id, type, name, image_url, created, updated,
    last_message_created) values (?, '${ORG}', 3, '', '', ?, ?, ?)`)
  const kase =
    sqlite.prepare(`insert into cases (id, organization_id, user_id, topic_id, status, agent_account_id,
    room_id, first_message, created, updated) values (?, '${ORG}', ?, ${topicID}, ?, ?, ?, ?, ?, ?)`)
  const message =
    sqlite.prepare(`insert into messages (id, room_id, sender_id, local_id, type, body, data, quote,
    created, updated) values (?, ?, ?, ?, 1001, ?, '{}', '{}', ?, ?)`)
  const search = sqlite.prepare('insert into message_search (rowid, words, room) values (?, ?, ?)')
  const insert = sqlite.transaction((batch: SeedCase[]) => {
    for (const c of batch) {
      const last = c.messages.at(-1)?.created ?? c.created
      room.run(c.room, c.created, last, last)
      kase.run(c.id, c.user, c.status, c.agent, c.room, c.messages[0]?.body ?? '', c.created, last)
      for (const m of c.messages) {
        message.run(m.id, c.room, m.sender, m.id, m.body, m.created, m.created)
        search.run(Number(m.id), indexedText(m.body), c.room)
      }
    }
  })
  for (const batch of seedCases()) insert(batch)
  sqlite.prepare(`update organizations set name = 'seeded' where id = '${ORG}'`).run()
  sqlite.exec('analyze')
  sqlite.close()
}

async function seedPostgres(url: string, topicID: number) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  for (const batch of seedCases()) {
    const ms = batch.flatMap((c) => c.messages.map((m) => ({ ...m, room: c.room })))
    await client.query('begin')
    await client.query(
      `insert into rooms (id, organization_id, type, name, image_url, created, updated, last_message_created)
       select r, $1, 3, '', '', c, c, c from unnest($2::text[], $3::bigint[]) as t(r, c)`,
      [ORG, batch.map((c) => c.room), batch.map((c) => c.created)],
    )
    await client.query(
      `insert into cases (id, organization_id, user_id, topic_id, status, agent_account_id, room_id, first_message,
         created, updated)
       select id, $1, u, $2, s, a, r, f, c, c from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
         $8::text[], $9::bigint[]) as t(id, u, s, a, r, f, c)`,
      [
        ORG,
        topicID,
        ...(['id', 'user', 'status', 'agent', 'room'] as const).map((k) => batch.map((c) => c[k])),
        batch.map((c) => c.messages[0]?.body ?? ''),
        batch.map((c) => c.created),
      ],
    )
    await client.query(
      `insert into messages (id, room_id, sender_id, local_id, type, body, data, quote, created, updated)
       select id, r, s, id, 1001, b, '{}', '{}', c, c from unnest($1::text[], $2::text[], $3::text[], $4::text[],
         $5::bigint[]) as t(id, r, s, b, c)`,
      [
        ms.map((m) => m.id),
        ms.map((m) => m.room),
        ms.map((m) => m.sender),
        ms.map((m) => m.body),
        ms.map((m) => m.created),
      ],
    )
    await client.query(
      `insert into message_search (message_id, room_id, words)
       select id, r, to_tsvector('simple', w) from unnest($1::bigint[], $2::text[], $3::text[]) as t(id, r, w)`,
      [ms.map((m) => m.id), ms.map((m) => m.room), ms.map((m) => indexedText(m.body))],
    )
    await client.query('commit')
  }
  await client.query(`update organizations set name = 'seeded' where id = $1`, [ORG])
  await client.query('vacuum analyze')
  await client.end()
}

async function postgresDatabase(serverURL: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverURL })
  await admin.connect()
  const exists = await admin.query(`select 1 from pg_database where datname = 'parley_bench_search'`)
  if (exists.rowCount === 0) await admin.query('create database parley_bench_search')
  await admin.end()
  const url = new URL(serverURL)
  url.pathname = '/parley_bench_search'
  return url.toString()
}

export interface SearchFigures {
  name: string
  seedSeconds: number | null
  classes: { name: string; queries: number; p50: number; p99: number; meanHits: number }[]
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0

/** Seeds (or reuses) the database, then times queries of every kind. */
export async function benchSearch(name: string, postgresServerURL?: string): Promise<SearchFigures> {
  const dataDir = join('data', 'bench-search')
  const databaseURL = postgresServerURL ? await postgresDatabase(postgresServerURL) : undefined
  const database = openDatabase({ databaseURL, dataDir })
  await migrate(database)
  let seedSeconds: number | null = null
  if (!(await seeded(database))) {
    const started = performance.now()
    console.log(`${name}: seeding ${CASES * PER_CASE} messages (kept for later runs)…`)
    await database.db.deleteFrom('organizations').where('id', '=', ORG).execute()
    const topicID = await prepareBase(database)
    if (databaseURL) await seedPostgres(databaseURL, topicID)
    else await seedSQLite(dataDir, topicID)
    seedSeconds = (performance.now() - started) / 1000
  }
  const services = createServices({
    database,
    clock: systemClock,
    masterKey: Buffer.alloc(32, 7),
    publicURL: 'http://127.0.0.1',
    files: testFileStorage(dataDir),
  })
  const agent = {
    agentAccountID: 'agent-1',
    organizationID: ORG,
    role: 'agent' as const,
    email: '',
    fullName: '',
  }
  const next = random(7)
  const pick = (low: number, high: number) => low + Math.floor(next() * (high - low + 1))
  const T_END = T0 + CASES * 60_000
  const classes: [string, () => Record<string, unknown>][] = [
    ['frequent word (ranks 1-20)', () => ({ query: word(pick(1, 20)) })],
    ['medium word (ranks 50-500)', () => ({ query: word(pick(50, 500)) })],
    ['rare word (ranks 2000-10000)', () => ({ query: word(pick(2000, 10_000)) })],
    ['two words (frequent + medium)', () => ({ query: `${word(pick(1, 20))} ${word(pick(50, 500))}` })],
    [
      'word + status/date filters',
      () => ({ query: word(pick(20, 200)), status: 'queued', from: T0, to: T_END / 2 + T0 / 2 }),
    ],
    ['visitor name / e-mail part', () => ({ query: `visitor${pick(0, VISITORS - 1)}@` })],
    ['filters only (status + dates)', () => ({ status: 'closed', from: pick(T0, T_END), to: T_END })],
  ]
  const results: SearchFigures['classes'] = []
  for (const [className, make] of classes) {
    for (let i = 0; i < 5; i++) await services.search.search(agent as never, { ...make(), limit: 20 })
    const times: number[] = []
    let hits = 0
    const count = className.startsWith('filters') ? 20 : 40
    for (let i = 0; i < count; i++) {
      const started = performance.now()
      const found = await services.search.search(agent as never, { ...make(), limit: 20 })
      times.push(performance.now() - started)
      hits += found.cases.length
    }
    times.sort((a, b) => a - b)
    results.push({
      name: className,
      queries: count,
      p50: percentile(times, 50),
      p99: percentile(times, 99),
      meanHits: hits / count,
    })
  }
  await database.close()
  return { name, seedSeconds, classes: results }
}

export function printSearch(rows: SearchFigures[]): void {
  console.log(
    `\nSearch: ${CASES * PER_CASE} messages in ${CASES} cases (20 results a page; in-process, no HTTP)`,
  )
  for (const row of rows) {
    console.log(
      `${row.name}${row.seedSeconds === null ? ' (seeded earlier)' : ` (seeded in ${row.seedSeconds.toFixed(0)} s)`}`,
    )
    for (const c of row.classes)
      console.log(
        `  ${c.name.padEnd(34)} ${String(c.queries).padStart(3)} queries  p50 ${c.p50.toFixed(1).padStart(6)} ms  p99 ${c.p99.toFixed(1).padStart(6)} ms  ${c.meanHits.toFixed(1)} cases`,
      )
  }
}
