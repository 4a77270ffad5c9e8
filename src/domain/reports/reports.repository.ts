import { type Kysely, type RawBuilder, sql } from 'kysely'
import type { Database } from '../../storage/database.js'
import type { Schema } from '../../storage/schema.js'
import { DAY_MS, type OffsetSpan } from './local-days.js'

// The queries of support reports (README "Reports"): the same SQL on SQLite and PostgreSQL, so
// both answer alike. Events of four kinds (a case opened, handed over, closed, rated) are read
// through covering indexes (organization_id, <time>, …) and counted per group. Medians are the
// middle row(s) of each group's durations, numbered by row_number() (which both databases have,
// unlike PostgreSQL's percentile_cont). Numbering every duration of a year means sorting hundreds
// of thousands of rows, so the counts also count durations per band (by their number of digits and
// first digit): the middle rows are then numbered among the few in their band only.

/** What reports group by: the local day, the case's topic, the case's agent, or nothing (totals). */
export type Grouping = 'day' | 'topic' | 'agent' | 'all'

export const EVENT = { opened: 1, handedOver: 2, closed: 3, rated: 4 } as const
/** The kinds of event with a duration, whose medians are reported. */
export const TIMED = [EVENT.handedOver, EVENT.closed] as const

export interface ReportQuery {
  organizationID: string
  /** [start, end): the instants of the local days reported. */
  start: number
  end: number
  /** Spans of constant UTC offset covering [start, end) (grouping by day only). */
  spans: readonly OffsetSpan[]
  /** The local day number of the first day: days are numbered from 0 by it. */
  firstDay: number
  topicID?: number | undefined
  agentAccountID?: string | undefined
}

/** A group's key: the day index (0 = the first day), topicID, agentAccountID ('' for none) or 0. */
export type GroupKey = string | number

/** One group's figures for one kind of event (for durations: those in one band). */
export interface EventCounts {
  key: GroupKey
  event: number
  /** The band of the durations counted (see bandOf); null for events without a duration. */
  band: number | null
  count: number
  /** Events with a duration (handed-over cases answered; every case closed); ratings given. */
  valued: number
  /** Sum of the values (rating points, for ratings). */
  total: number
  /** Ratings 1..5 given (rated events). */
  stars: [number, number, number, number, number]
}

/** A duration wanted: the `rank`-th (1-based, in order) of its group's durations in a band. */
export interface Wanted {
  key: GroupKey
  event: number
  band: number
  rank: number
}

/** A duration found: what was wanted, and its value (ms). */
export interface Found extends Wanted {
  value: number
}

/** Each kind of event: its time column, its value (a duration, or the rating), and when it has one. */
const KINDS = {
  [EVENT.opened]: { time: 'created', value: sql`cast(null as bigint)`, valued: sql`1 = 0` },
  [EVENT.handedOver]: {
    time: 'handed_over_at',
    value: sql`c.first_response_at - c.handed_over_at`,
    valued: sql`c.first_response_at is not null`,
  },
  [EVENT.closed]: { time: 'closed_time', value: sql`c.closed_time - c.created`, valued: sql`1 = 1` },
  [EVENT.rated]: { time: 'rated_at', value: sql`c.rating`, valued: sql`1 = 1` },
} as const

const bigint = (value: number) => sql`cast(${value} as bigint)`

/**
 * The UTC offset at instant `time`: the offset of the span holding it, as a CASE over the spans'
 * ends (a year has one to three spans), so a row's day is plain arithmetic on the row.
 */
function offsetAt(spans: readonly OffsetSpan[], time: RawBuilder<unknown>) {
  const last = spans.at(-1)
  if (!last) return bigint(0)
  if (spans.length === 1) return bigint(last.offset)
  const whens = spans
    .slice(0, -1)
    .map((span) => sql`when ${time} < ${bigint(span.end)} then ${bigint(span.offset)}`)
  return sql`case ${sql.join(whens, sql` `)} else ${bigint(last.offset)} end`
}

function keyOf(grouping: Grouping, time: RawBuilder<unknown>, query: ReportQuery) {
  if (grouping === 'day')
    return sql`(${time} + ${offsetAt(query.spans, time)}) / ${bigint(DAY_MS)} - ${bigint(query.firstDay)}`
  if (grouping === 'topic') return sql`c.topic_id`
  if (grouping === 'agent') return sql`coalesce(c.agent_account_id, '')`
  return sql`0`
}

/** The events of one kind in [start, end) as (k, v) rows, optionally only those with a value. */
function events(grouping: Grouping, query: ReportQuery, event: number, onlyValued: boolean) {
  const kind = KINDS[event as keyof typeof KINDS]
  const at = sql.ref(`c.${kind.time}`) as RawBuilder<unknown>
  return sql`select ${keyOf(grouping, at, query)} as k, ${kind.value} as v
    from cases c
    where c.organization_id = ${query.organizationID} and ${at} >= ${bigint(query.start)}
      and ${at} < ${bigint(query.end)}
      ${query.topicID !== undefined ? sql`and c.topic_id = ${query.topicID}` : sql``}
      ${query.agentAccountID !== undefined ? sql`and c.agent_account_id = ${query.agentAccountID}` : sql``}
      ${onlyValued ? sql`and ${kind.valued}` : event === EVENT.rated ? sql`and c.rating is not null` : sql``}`
}

/**
 * The band of a duration: 10 × its number of digits + its first digit (0 for a negative one, from a
 * clock stepped back; past 10^10 ms, 110 + the number of 10^10 ms), so bands are in the order of
 * the durations they hold and a band spans at most a factor of two. Integer arithmetic, the same
 * on both databases.
 */
const bandOf = (v: RawBuilder<unknown>) => {
  const whens = Array.from(
    { length: 10 },
    (_, i) =>
      sql`when ${v} < ${sql.lit(10 ** (i + 1))} then ${sql.lit(10 * (i + 1))} + ${v} / ${sql.lit(10 ** i)}`,
  )
  return sql`case when ${v} < 0 then 0 ${sql.join(whens, sql` `)} else 110 + ${v} / ${sql.lit(10 ** 10)} end`
}

const number = (value: unknown) => Number(value ?? 0)
const keyFrom = (grouping: Grouping, value: unknown): GroupKey =>
  grouping === 'agent' ? String(value) : Number(value)
const isTimed = (event: number) => (TIMED as readonly number[]).includes(event)

/** How many events of each kind per group (durations per band), with the sum of their values and the ratings given. */
export async function eventCounts(
  db: Kysely<Schema>,
  grouping: Grouping,
  query: ReportQuery,
): Promise<EventCounts[]> {
  const star = (n: number) => sql.raw(`sum(case when v = ${n} then 1 else 0 end) as r${n}`)
  const v = sql.ref('v') as RawBuilder<unknown>
  const perKind = Object.values(EVENT).map(
    (event) => sql`select k, ${sql.lit(event)} as kind,
      ${isTimed(event) ? sql`band` : sql`cast(null as bigint)`} as band,
      count(*) as n, count(v) as valued, sum(v) as total,
      ${event === EVENT.rated ? sql`${star(1)}, ${star(2)}, ${star(3)}, ${star(4)}, ${star(5)}` : sql`0 as r1, 0 as r2, 0 as r3, 0 as r4, 0 as r5`}
      from (select k, v, ${bandOf(v)} as band from (${events(grouping, query, event, false)}) e) banded
      group by k${isTimed(event) ? sql`, band` : sql``}`,
  )
  const { rows } = await sql<Record<string, unknown>>`${sql.join(perKind, sql` union all `)}`.execute(db)
  return rows.map((row) => ({
    key: keyFrom(grouping, row.k),
    event: number(row.kind),
    band: row.band === null ? null : number(row.band),
    count: number(row.n),
    valued: number(row.valued),
    total: number(row.total),
    stars: [number(row.r1), number(row.r2), number(row.r3), number(row.r4), number(row.r5)],
  }))
}

/**
 * The durations wanted (middle ones, from eventCounts' bands): only the durations of the bands
 * wanted are numbered, per group and band, in order.
 */
export async function durationsAt(
  db: Kysely<Schema>,
  grouping: Grouping,
  query: ReportQuery,
  wanted: readonly Wanted[],
): Promise<Found[]> {
  if (wanted.length === 0) return []
  const key = (value: GroupKey) =>
    grouping === 'agent' ? sql`cast(${value} as text)` : bigint(Number(value))
  const group = (w: Wanted) => sql`${key(w.key)}, ${bigint(w.event)}, ${bigint(w.band)}`
  const bands = new Map(wanted.map((w) => [`${w.event}:${w.key}:${w.band}`, w]))
  const timed = TIMED.map(
    (event) => sql`select k, ${sql.lit(event)} as kind, v from (${events(grouping, query, event, true)}) e`,
  )
  const v = sql.ref('t.v') as RawBuilder<unknown>
  // IN, not joins: both databases look the bands (and ranks) up in a hash or index they build for
  // it. With joins SQLite chose, for bound values, to scan the bands for every duration, or to
  // number the durations again for every rank wanted.
  const { rows } = await sql<Record<string, unknown>>`with
    bands(k, kind, band) as (values ${sql.join([...bands.values()].map((w) => sql`(${group(w)})`))}),
    wanted(k, kind, band, rnk) as (values ${sql.join(wanted.map((w) => sql`(${group(w)}, ${bigint(w.rank)})`))}),
    picked as (select k, kind, band, v, row_number() over (partition by k, kind, band order by v) as rn
      from (select t.k, t.kind, t.v, ${bandOf(v)} as band from (${sql.join(timed, sql` union all `)}) t) banded
      where (k, kind, band) in (select k, kind, band from bands))
    select k, kind, band, rn, v from picked
    where (k, kind, band, rn) in (select k, kind, band, rnk from wanted)`.execute(db)
  return rows.map((row) => ({
    key: keyFrom(grouping, row.k),
    event: number(row.kind),
    band: number(row.band),
    rank: number(row.rn),
    value: number(row.v),
  }))
}

/**
 * Runs report queries: on PostgreSQL in a transaction that turns JIT compilation off (compiling
 * costs more than it saves on these: some 80 ms a query) and lets sorts and hash tables take 64 MB
 * before they spill to disk; on SQLite as they are.
 */
export function analytical<T>(database: Database, work: (db: Kysely<Schema>) => Promise<T>): Promise<T> {
  if (database.dialect !== 'postgres') return work(database.db)
  return database.transaction(async (trx) => {
    await sql`set local jit = off`.execute(trx)
    await sql`set local work_mem = '64MB'`.execute(trx)
    return work(trx)
  })
}
