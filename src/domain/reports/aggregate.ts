import type { DayEvents } from './day-events.js'
import { DAY_MS, type OffsetSpan } from './local-days.js'
import { median } from './medians.js'

// Report figures from days of events (day-events.ts), counted here per group (a local day, a
// topic, an agent) and in total. A year is some 700,000 events: each is a few comparisons and
// increments in typed arrays, its duration stored with its group's number; the medians are then
// selected per group from the durations laid out group by group.

/** Kinds of event, as day-events.ts packs them. */
export const EVENT = { opened: 0, handedOver: 1, closed: 2, rated: 3 } as const

/** What reports group by: the local day, the case's topic, the case's agent. */
export type Grouping = 'day' | 'topic' | 'agent'

/** The figures of a group of cases (docs/reference/agent-api.md, "Reports"). Times are milliseconds. */
export interface ReportFigures {
  /** Cases opened (created) in the period. */
  opened: number
  /** Cases that first went to agents in the period. */
  handedOver: number
  /** Of those, how many an agent has answered (so far). */
  firstResponses: number
  /** Median time from handover to an agent's first message, of those answered; null: none. */
  firstResponseMedian: number | null
  /** Cases closed in the period. */
  closed: number
  /** Median time from opening to closing of the cases closed; null: none. */
  resolutionMedian: number | null
  /** Ratings given in the period: how many, their mean (null: none), and how many of each 1–5. */
  ratings: number
  ratingAverage: number | null
  ratingDistribution: number[]
}

export interface Selection {
  grouping: Grouping
  /** [start, end): the instants of the local days reported. */
  start: number
  end: number
  /** Spans of constant UTC offset covering [start, end). */
  spans: readonly OffsetSpan[]
  /** The local day number of the first day: days are numbered from 0 by it. */
  firstDay: number
  /** How many local days. */
  dayCount: number
  topicID?: number | undefined
  agentAccountID?: string | undefined
}

/** A group's key: the day index (0 = the first day), topicID, or agentAccountID ('' for none). */
export type GroupKey = string | number

/** Counters per group: opened, handed over, answered, closed, ratings, then ratings of 1..5. */
const [OPENED, HANDED, ANSWERED, CLOSED, RATINGS, STARS, COUNTERS] = [0, 1, 2, 3, 4, 5, 10]

/** A typed array of at least `n` numbers: `array` when it is long enough. */
const atLeast = <T extends Float64Array | Int32Array>(array: T, n: number, make: (n: number) => T): T =>
  array.length >= n ? array : make(Math.max(n, array.length * 2))

/**
 * Durations with the number of their group. Its arrays are reused from one report to the next
 * (tally runs to its end without waiting, so no two reports share them at once).
 */
class Durations {
  private values = new Float64Array(0)
  private groups = new Int32Array(0)
  private laidOut = new Float64Array(0)
  length = 0

  reset(capacity: number): void {
    this.values = atLeast(this.values, capacity, (n) => new Float64Array(n))
    this.groups = atLeast(this.groups, capacity, (n) => new Int32Array(n))
    this.length = 0
  }
  add(value: number, group: number): void {
    this.values[this.length] = value
    this.groups[this.length++] = group
  }
  /** Each group's median (by its number), and that of all of them. */
  medians(groupCount: number): { groups: (number | null)[]; total: number | null } {
    const starts = new Int32Array(groupCount + 1)
    for (let i = 0; i < this.length; i++) (starts[(this.groups[i] as number) + 1] as number)++
    for (let g = 0; g < groupCount; g++) starts[g + 1] = (starts[g + 1] as number) + (starts[g] as number)
    this.laidOut = atLeast(this.laidOut, this.length, (n) => new Float64Array(n))
    const next = starts.slice(0, groupCount)
    for (let i = 0; i < this.length; i++) {
      const g = this.groups[i] as number
      this.laidOut[(next[g] as number)++] = this.values[i] as number
    }
    const groups = Array.from({ length: groupCount }, (_, g) =>
      median(this.laidOut.subarray(starts[g] as number, starts[g + 1] as number)),
    )
    return { groups, total: median(this.values.subarray(0, this.length)) }
  }
}

const responses = new Durations()
const resolutions = new Durations()
/** The group of each event of a kind of a day (−1: not counted), reused. */
let eventGroups = new Int32Array(0)

/** Where a day's events go: the group of each pair (−1: not wanted), and the day's UTC offsets. */
interface DayPlan {
  day: DayEvents
  pairGroup: Int32Array
  /** offsets[0] until cuts[0], offsets[1] until cuts[1], offsets[2] after. */
  cuts: [number, number]
  offsets: [number, number, number]
}

/** The UTC offsets of a day (start..start + DAY_MS). */
function offsetsOf(spans: readonly OffsetSpan[], start: number): Pick<DayPlan, 'cuts' | 'offsets'> {
  const within = spans.filter((span) => span.end > start && span.start < start + DAY_MS)
  if (within.length > 3) throw new Error('more than two changes of UTC offset in a day')
  const offsets = within.map((span) => span.offset)
  const cuts = within.map((span) => span.end)
  while (offsets.length < 3) offsets.push(offsets.at(-1) ?? spans.at(-1)?.offset ?? 0)
  while (cuts.length < 2) cuts.push(Number.POSITIVE_INFINITY)
  return { cuts: [cuts[0] as number, cuts[1] as number], offsets: offsets as [number, number, number] }
}

/** Sets eventGroups[i] to the group of event i of the kind (−1 when not counted); returns how many events. */
function groupEvents(plan: DayPlan, kind: number, selection: Selection): number {
  const { day, pairGroup } = plan
  const times = day.times[kind] as Uint32Array
  const pairs = day.pairs[kind] as Uint8Array
  const { start, end, firstDay } = selection
  const byDay = selection.grouping === 'day'
  const [cut1, cut2] = plan.cuts
  const [offset1, offset2, offset3] = plan.offsets
  if (eventGroups.length < times.length) eventGroups = new Int32Array(times.length * 2)
  for (let i = 0; i < times.length; i++) {
    let g = pairGroup[pairs[i] as number] as number
    if (g >= 0) {
      const t = day.start + (times[i] as number)
      if (t < start || t >= end) g = -1
      else if (byDay)
        g = Math.floor((t + (t < cut1 ? offset1 : t < cut2 ? offset2 : offset3)) / DAY_MS) - firstDay
    }
    eventGroups[i] = g
  }
  return times.length
}

/** Counts a day's events of one kind into `counts` (and their durations). */
function countEvents(plan: DayPlan, kind: number, selection: Selection, counts: Int32Array): void {
  const n = groupEvents(plan, kind, selection)
  const groups = eventGroups
  const values = plan.day.values[kind] as Int32Array
  const none = plan.day.none
  if (kind === EVENT.opened) {
    for (let i = 0; i < n; i++) {
      const g = groups[i] as number
      if (g >= 0) (counts[g * COUNTERS + OPENED] as number)++
    }
  } else if (kind === EVENT.handedOver) {
    for (let i = 0; i < n; i++) {
      const g = groups[i] as number
      if (g < 0) continue
      ;(counts[g * COUNTERS + HANDED] as number)++
      const v = values[i] as number
      if (v !== none && !Number.isNaN(v)) {
        ;(counts[g * COUNTERS + ANSWERED] as number)++
        responses.add(v, g)
      }
    }
  } else if (kind === EVENT.closed) {
    for (let i = 0; i < n; i++) {
      const g = groups[i] as number
      if (g < 0) continue
      ;(counts[g * COUNTERS + CLOSED] as number)++
      resolutions.add(values[i] as number, g)
    }
  } else {
    for (let i = 0; i < n; i++) {
      const g = groups[i] as number
      if (g < 0) continue
      ;(counts[g * COUNTERS + RATINGS] as number)++
      const v = values[i] as number
      if (v >= 1 && v <= 5 && Number.isInteger(v)) (counts[g * COUNTERS + STARS + v - 1] as number)++
    }
  }
}

function figuresOf(n: Int32Array, response: number | null, resolution: number | null): ReportFigures {
  const stars = Array.from(n.subarray(STARS, STARS + 5))
  const ratings = n[RATINGS] as number
  const points = stars.reduce((sum, count, i) => sum + count * (i + 1), 0)
  return {
    opened: n[OPENED] as number,
    handedOver: n[HANDED] as number,
    firstResponses: n[ANSWERED] as number,
    firstResponseMedian: response,
    closed: n[CLOSED] as number,
    resolutionMedian: resolution,
    ratings,
    ratingAverage: ratings > 0 ? Math.round((points / ratings) * 100) / 100 : null,
    ratingDistribution: stars,
  }
}

/** The figures of the events of the days (in [start, end) only, of the topic and agent chosen) per group, and in total. */
export function tally(
  days: readonly DayEvents[],
  selection: Selection,
): { groups: Map<GroupKey, ReportFigures>; total: ReportFigures } {
  const { grouping, topicID, agentAccountID } = selection
  const keys: GroupKey[] = grouping === 'day' ? Array.from({ length: selection.dayCount }, (_, i) => i) : []
  const numbers = new Map<GroupKey, number>()
  const numberOf = (key: GroupKey) => {
    let n = numbers.get(key)
    if (n === undefined) {
      n = keys.length
      numbers.set(key, n)
      keys.push(key)
    }
    return n
  }
  responses.reset(days.reduce((sum, day) => sum + (day.times[EVENT.handedOver]?.length ?? 0), 0))
  resolutions.reset(days.reduce((sum, day) => sum + (day.times[EVENT.closed]?.length ?? 0), 0))
  let counts = new Int32Array(COUNTERS * Math.max(keys.length, 64))
  for (const day of days) {
    const pairGroup = new Int32Array(day.agents.length)
    day.agents.forEach((agent, pair) => {
      const topic = day.topics[pair] as number
      const wanted =
        (topicID === undefined || topic === topicID) &&
        (agentAccountID === undefined || agent === agentAccountID)
      const key = grouping === 'topic' ? topic : (agent ?? '')
      pairGroup[pair] = !wanted ? -1 : grouping === 'day' ? 0 : numberOf(key)
    })
    if (keys.length * COUNTERS > counts.length) {
      const more = new Int32Array(keys.length * COUNTERS * 2)
      more.set(counts)
      counts = more
    }
    const plan: DayPlan = { day, pairGroup, ...offsetsOf(selection.spans, day.start) }
    for (let kind = 0; kind < day.times.length; kind++) countEvents(plan, kind, selection, counts)
  }
  const [ofResponses, ofResolutions] = [responses, resolutions].map((d) => d.medians(keys.length)) as [
    ReturnType<Durations['medians']>,
    ReturnType<Durations['medians']>,
  ]
  const totals = new Int32Array(COUNTERS)
  for (let g = 0; g < keys.length; g++)
    for (let c = 0; c < COUNTERS; c++)
      totals[c] = (totals[c] as number) + (counts[g * COUNTERS + c] as number)
  const groups = new Map<GroupKey, ReportFigures>()
  keys.forEach((key, g) => {
    const n = counts.subarray(g * COUNTERS, (g + 1) * COUNTERS)
    // By day every day has figures; topics and agents only with some events.
    if (grouping !== 'day' && n.every((count) => count === 0)) return
    groups.set(key, figuresOf(n, ofResponses.groups[g] ?? null, ofResolutions.groups[g] ?? null))
  })
  return { groups, total: figuresOf(totals, ofResponses.total, ofResolutions.total) }
}
