import { type Kysely, type RawBuilder, sql } from 'kysely'
import type { Database } from '../../storage/database.js'
import type { Schema } from '../../storage/schema.js'
import { type DayEvents, type Event, packDay, unpackDay } from './day-events.js'
import type { DayMemory } from './day-memory.js'
import { DAY_MS } from './local-days.js'

// The events of support reports (docs/reference/agent-api.md, "Reports"), per UTC day of an organization: a finished day
// from report_days (migration 0021) once stored there, else from the cases (through covering
// indexes, migration 0016), and then stored. Triggers on `cases` bump a day's version and drop its
// events in the transaction of any change to a case with an event in that day; a day is stored
// only if its version is still the one read *before* its events were read, so a change committed
// after that (which the events may miss) keeps it from being stored, on every instance alike.
// The same SQL on SQLite and PostgreSQL.

/** Each kind of event (day-events.ts order): its time column, its value, which cases have one. */
const KINDS: { time: string; value: RawBuilder<unknown>; where: RawBuilder<unknown> }[] = [
  { time: 'created', value: sql`cast(null as bigint)`, where: sql`` },
  { time: 'handed_over_at', value: sql`c.first_response_at - c.handed_over_at`, where: sql`` },
  { time: 'closed_time', value: sql`c.closed_time - c.created`, where: sql`` },
  { time: 'rated_at', value: sql`c.rating`, where: sql`and c.rating is not null` },
]

const bigint = (value: number) => sql`cast(${value} as bigint)`

/** The events of the organization's cases in [start, end), of every kind. */
async function eventsBetween(
  db: Kysely<Schema>,
  organizationID: string,
  start: number,
  end: number,
): Promise<Event[]> {
  const selects = KINDS.map(({ time, value, where }, kind) => {
    const at = sql.ref(`c.${time}`)
    return sql`select ${sql.lit(kind)} as kind, ${at} as t, c.topic_id as topic,
      c.agent_account_id as agent, ${value} as v from cases c
      where c.organization_id = ${organizationID} and ${at} >= ${bigint(start)} and ${at} < ${bigint(end)} ${where}`
  })
  const { rows } = await sql<Record<string, unknown>>`${sql.join(selects, sql` union all `)}`.execute(db)
  return rows.map((row) => ({
    kind: Number(row.kind),
    time: Number(row.t),
    topic: Number(row.topic),
    agent: row.agent === null ? null : String(row.agent),
    value: row.v === null ? null : Number(row.v),
  }))
}

/** Days are read from the cases in runs of consecutive days, one query each. */
function runsOf(days: readonly number[]): [number, number][] {
  const runs: [number, number][] = []
  for (const day of days) {
    const last = runs.at(-1)
    if (last && last[1] === day) last[1] = day + 1
    else runs.push([day, day + 1])
  }
  return runs
}

/**
 * The events of the organization's cases in the UTC days firstDay..lastDay (inclusive), one
 * DayEvents per day in order: as kept in `memory` while report_days has the same version, else as
 * stored there, else from the cases. Days that ended by `now` and are not stored yet are stored.
 */
export async function eventsOfDays(
  database: Database,
  memory: DayMemory,
  organizationID: string,
  [firstDay, lastDay]: [number, number],
  now: number,
): Promise<DayEvents[]> {
  const { db } = database
  const inRange = db
    .selectFrom('report_days')
    .where('organization_id', '=', organizationID)
    .where('day', '>=', firstDay)
    .where('day', '<=', lastDay)
  // First the versions, then (for days not kept) the events stored, then the cases: see above.
  const versions = new Map<number, number>()
  for (const row of await inRange.select(['day', 'version']).execute())
    versions.set(Number(row.day), Number(row.version))
  const days = new Map<number, DayEvents>()
  const versionOf = (day: number) => versions.get(day) ?? 0
  for (let day = firstDay; day <= lastDay; day++) {
    const kept = memory.get(organizationID, day, versionOf(day))
    if (kept) days.set(day, kept)
  }
  const notKept = [...versions.keys()].filter((day) => !days.has(day))
  if (notKept.length > 0) {
    const stored = await inRange
      .select(['day', 'version', 'events'])
      .where('day', 'in', notKept)
      .where('events', 'is not', null)
      .execute()
    for (const row of stored) {
      const [day, version] = [Number(row.day), Number(row.version)]
      const events = unpackDay(day * DAY_MS, row.events as Buffer)
      if (!events) continue
      days.set(day, events)
      memory.set(organizationID, day, version, events, (row.events as Buffer).length)
    }
  }
  const missing: number[] = []
  for (let day = firstDay; day <= lastDay; day++) if (!days.has(day)) missing.push(day)
  const toStore: { day: number; version: number; events: Buffer }[] = []
  for (const [from, to] of runsOf(missing)) {
    const perDay = new Map<number, Event[]>()
    for (const event of await eventsBetween(db, organizationID, from * DAY_MS, to * DAY_MS)) {
      const day = Math.floor(event.time / DAY_MS)
      const list = perDay.get(day) ?? []
      list.push(event)
      perDay.set(day, list)
    }
    for (let day = from; day < to; day++) {
      const packed = packDay(day * DAY_MS, perDay.get(day) ?? [])
      const events = unpackDay(day * DAY_MS, packed) as DayEvents
      days.set(day, events)
      // Read after the version: as of that version or later (then no longer used).
      memory.set(organizationID, day, versionOf(day), events, packed.length)
      if (day >= 0 && (day + 1) * DAY_MS <= now)
        toStore.push({ day, version: versionOf(day), events: packed })
    }
  }
  if (toStore.length > 0) await storeDays(database, organizationID, toStore)
  return [...days.keys()].sort((a, b) => a - b).map((day) => days.get(day) as DayEvents)
}

/** At most this many days per statement (a year's days are a few MB). */
const BATCH = 100

/** Stores days read, each only if its version is still the one read before (0: no row then). */
export async function storeDays(
  database: Database,
  organizationID: string,
  days: readonly { day: number; version: number; events: Buffer }[],
): Promise<void> {
  await database.transaction(async (trx) => {
    for (let i = 0; i < days.length; i += BATCH) {
      const values = days
        .slice(i, i + BATCH)
        .map((d) => sql`(${organizationID}, ${bigint(d.day)}, ${bigint(d.version)}, ${d.events})`)
      await sql`insert into report_days (organization_id, day, version, events) values ${sql.join(values)}
        on conflict (organization_id, day) do update set events = excluded.events
        where report_days.version = excluded.version`.execute(trx)
    }
  })
}
