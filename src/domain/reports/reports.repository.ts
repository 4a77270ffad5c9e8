import { type Kysely, type RawBuilder, sql } from 'kysely'
import type { Schema } from '../../storage/schema.js'
import { DAY_MS, type OffsetSpan } from './local-days.js'

// The one query of support reports (README "Reports"): the same SQL on SQLite and PostgreSQL, so
// both answer alike. Events of four kinds (a case opened, handed over, closed, rated) are read
// through the indexes (organization_id, <time>) and put in groups; medians come from row_number()
// over each group's durations (the middle row, or the mean of the middle two), which both
// databases have, instead of PostgreSQL's percentile_cont, which SQLite has not.

/** What reports group by: the local day, the case's topic, the case's agent, or nothing (totals). */
export type Grouping = 'day' | 'topic' | 'agent' | 'all'

export const EVENT = { opened: 1, handedOver: 2, closed: 3, rated: 4 } as const

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

/** One group's figures for one kind of event. */
export interface EventFigures {
  /** The day index (0 = the first day), topicID, agentAccountID ('' for none) or 0 (totals). */
  key: string | number
  event: number
  count: number
  /** Events with a value (handed-over cases answered; every other event of a kind with values). */
  valued: number
  /** Sum of the values (ms, or rating points). */
  total: number
  /** The middle value(s): the median is their mean; null without values. */
  low: number | null
  high: number | null
  /** Ratings 1..5 given (rated events). */
  stars: [number, number, number, number, number]
}

interface Row {
  k: string | number
  kind: number | string
  n: number | string
  valued: number | string
  total: number | string | null
  low: number | string | null
  high: number | string | null
  r1: number | string
  r2: number | string
  r3: number | string
  r4: number | string
  r5: number | string
}

/** Each kind of event: its time column, and the value whose median and sum it reports. */
const KINDS = [
  { event: EVENT.opened, time: 'created', value: sql`cast(null as bigint)` },
  { event: EVENT.handedOver, time: 'handed_over_at', value: sql`c.first_response_at - c.handed_over_at` },
  { event: EVENT.closed, time: 'closed_time', value: sql`c.closed_time - c.created` },
  { event: EVENT.rated, time: 'rated_at', value: sql`c.rating` },
] as const

const bigint = (value: number) => sql`cast(${value} as bigint)`

function keyOf(grouping: Grouping, time: RawBuilder<unknown>, firstDay: number) {
  if (grouping === 'day') return sql`(${time} + s.off) / ${bigint(DAY_MS)} - ${bigint(firstDay)}`
  if (grouping === 'topic') return sql`c.topic_id`
  if (grouping === 'agent') return sql`coalesce(c.agent_account_id, '')`
  return sql`0`
}

/** Figures per group and kind of event, for the events in [start, end). */
export async function reportFigures(
  db: Kysely<Schema>,
  grouping: Grouping,
  query: ReportQuery,
): Promise<EventFigures[]> {
  const spans = sql.join(
    query.spans.map((span) => sql`(${bigint(span.start)}, ${bigint(span.end)}, ${bigint(span.offset)})`),
  )
  const events = KINDS.map(({ event, time, value }) => {
    const at = sql.ref(`c.${time}`)
    const inSpan = grouping === 'day' ? sql`join spans s on ${at} >= s.lo and ${at} < s.hi` : sql``
    return sql`select ${keyOf(grouping, at as RawBuilder<unknown>, query.firstDay)} as k, ${sql.lit(event)} as kind,
        ${value} as v
      from cases c ${inSpan}
      where c.organization_id = ${query.organizationID} and ${at} >= ${bigint(query.start)}
        and ${at} < ${bigint(query.end)}
        ${query.topicID !== undefined ? sql`and c.topic_id = ${query.topicID}` : sql``}
        ${query.agentAccountID !== undefined ? sql`and c.agent_account_id = ${query.agentAccountID}` : sql``}
        ${event === EVENT.rated ? sql`and c.rating is not null` : sql``}`
  })
  const star = (n: number) => sql.raw(`sum(case when kind = ${EVENT.rated} and v = ${n} then 1 else 0 end)`)
  const { rows } = await sql<Row>`with spans(lo, hi, off) as (values ${spans}),
    events(k, kind, v) as (${sql.join(events, sql` union all `)}),
    ranked as (select k, kind, v,
        row_number() over (partition by k, kind order by case when v is null then 1 else 0 end, v) as rn,
        count(v) over (partition by k, kind) as cnt
      from events)
    select k, kind, count(*) as n, count(v) as valued, sum(v) as total,
      min(case when rn in ((cnt + 1) / 2, (cnt + 2) / 2) then v end) as low,
      max(case when rn in ((cnt + 1) / 2, (cnt + 2) / 2) then v end) as high,
      ${star(1)} as r1, ${star(2)} as r2, ${star(3)} as r3, ${star(4)} as r4, ${star(5)} as r5
    from ranked group by k, kind`.execute(db)
  const number = (value: number | string | null) => (value === null ? null : Number(value))
  return rows.map((row) => ({
    key: grouping === 'agent' ? String(row.k) : Number(row.k),
    event: Number(row.kind),
    count: Number(row.n),
    valued: Number(row.valued),
    total: Number(row.total ?? 0),
    low: number(row.low),
    high: number(row.high),
    stars: [Number(row.r1), Number(row.r2), Number(row.r3), Number(row.r4), Number(row.r5)],
  }))
}
