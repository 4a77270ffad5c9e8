import { AppError, paramError } from '../../errors/app-error.js'
import type { Database } from '../../storage/database.js'
import type { AgentIdentity } from '../agents/agent.js'
import type { Repositories } from '../repositories.js'
import { dayNumber, localDays, zoneFormatter } from './local-days.js'
import { Medians } from './medians.js'
import {
  analytical,
  durationsAt,
  EVENT,
  type EventCounts,
  eventCounts,
  type Grouping,
  type GroupKey,
  type ReportQuery,
} from './reports.repository.js'

/** The longest range one report covers, in days. */
export const MAX_REPORT_DAYS = 366

export type ReportGrouping = Exclude<Grouping, 'all'>

export interface ReportRequest {
  /** The first and last local day, 'YYYY-MM-DD' (both included). */
  from: string
  to: string
  /** IANA time zone of the days (default UTC). */
  timeZone: string
  by: ReportGrouping
  topicID?: number | undefined
  agentAccountID?: string | undefined
}

/** The figures of a group of cases (README "Reports"). Times are milliseconds. */
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

export interface ReportRow extends ReportFigures {
  /** The day ('YYYY-MM-DD'), topicID (as a string) or agentAccountID ('' for cases without an agent). */
  key: string
  /** The day, the topic's name, the agent's name ('' for cases without an agent). */
  label: string
}

export interface Report {
  from: string
  to: string
  timeZone: string
  by: ReportGrouping
  rows: ReportRow[]
  totals: ReportFigures
}

const empty = (): ReportFigures => ({
  opened: 0,
  handedOver: 0,
  firstResponses: 0,
  firstResponseMedian: null,
  closed: 0,
  resolutionMedian: null,
  ratings: 0,
  ratingAverage: null,
  ratingDistribution: [0, 0, 0, 0, 0],
})

/** Adds one kind of event's counts (of a band, for durations) to a group's figures. */
function add(into: ReportFigures, counts: EventCounts): void {
  if (counts.event === EVENT.opened) into.opened += counts.count
  else if (counts.event === EVENT.handedOver) {
    into.handedOver += counts.count
    into.firstResponses += counts.valued
  } else if (counts.event === EVENT.closed) into.closed += counts.count
  else {
    into.ratings += counts.count
    into.ratingDistribution = into.ratingDistribution.map((n, i) => n + (counts.stars[i] as number))
    const points = into.ratingDistribution.reduce((sum, n, i) => sum + n * (i + 1), 0)
    into.ratingAverage = into.ratings > 0 ? Math.round((points / into.ratings) * 100) / 100 : null
  }
}

/** Sets a group's median times, once the medians are known. */
function withMedians(into: ReportFigures, medians: Medians, key: GroupKey): ReportFigures {
  into.firstResponseMedian = medians.median(key, EVENT.handedOver)
  into.resolutionMedian = medians.median(key, EVENT.closed)
  return into
}

/**
 * Support reports (README "Reports"): per local day, topic or agent, the cases opened, handed over
 * and closed, the median first response and resolution times, and the ratings given. Admins see
 * every case of their organization; an agent sees the figures of the cases they hold (or held
 * when the cases closed) only.
 */
export class Reports {
  constructor(
    private readonly deps: {
      database: Database
      repositories: Pick<Repositories, 'agents' | 'topics'>
    },
  ) {}

  async report(agent: AgentIdentity, request: ReportRequest): Promise<Report> {
    const format = zoneFormatter(request.timeZone)
    if (!format) throw paramError('timeZone', 'must be an IANA time zone (such as Europe/Berlin)')
    const from = dayNumber(request.from)
    if (from === undefined) throw paramError('from', 'must be a date (YYYY-MM-DD)')
    const to = dayNumber(request.to)
    if (to === undefined) throw paramError('to', 'must be a date (YYYY-MM-DD)')
    if (to < from) throw paramError('to', "must not be before 'from'")
    if (to - from + 1 > MAX_REPORT_DAYS)
      throw paramError('to', `must be at most ${MAX_REPORT_DAYS} days from 'from' (both included)`)
    if (
      agent.role !== 'admin' &&
      request.agentAccountID !== undefined &&
      request.agentAccountID !== agent.agentAccountID
    )
      throw new AppError('forbidden', "agents see reports of their own cases only; admins see everyone's")

    const days = localDays(format, from, to)
    const query: ReportQuery = {
      organizationID: agent.organizationID,
      start: days.start,
      end: days.end,
      spans: days.spans,
      firstDay: days.firstDay,
      topicID: request.topicID,
      agentAccountID: agent.role === 'admin' ? request.agentAccountID : agent.agentAccountID,
    }
    const { database } = this.deps
    const counts = await analytical(database, (db) => eventCounts(db, request.by, query))
    const totals = empty()
    const groups = new Map<GroupKey, ReportFigures>()
    const [groupMedians, totalMedians] = [new Medians(), new Medians()]
    for (const kind of counts) {
      add(totals, kind)
      const into = groups.get(kind.key) ?? empty()
      add(into, kind)
      groups.set(kind.key, into)
      if (kind.band !== null && kind.valued > 0) {
        groupMedians.add(kind.key, kind.event, kind.band, kind.valued)
        totalMedians.add(0, kind.event, kind.band, kind.valued)
      }
    }
    const [ofGroups, ofTotals] = await Promise.all([
      analytical(database, (db) => durationsAt(db, request.by, query, groupMedians.wanted())),
      analytical(database, (db) => durationsAt(db, 'all', query, totalMedians.wanted())),
    ])
    groupMedians.record(ofGroups)
    totalMedians.record(ofTotals)
    withMedians(totals, totalMedians, 0)
    // Every day has a row, also without cases (a chart's axis); topics and agents only with some.
    const keys = request.by === 'day' ? days.dates.map((_, day) => day) : [...groups.keys()]
    const figures = new Map(
      keys.map((key) => [
        request.by === 'day' ? (days.dates[Number(key)] as string) : String(key),
        withMedians(groups.get(key) ?? empty(), groupMedians, key),
      ]),
    )
    const labels = await this.labels(agent.organizationID, request.by, [...figures.keys()])
    const rows = [...figures].map(([key, figures]) => ({ key, label: labels.get(key) ?? key, ...figures }))
    if (request.by !== 'day') rows.sort(byLabel)
    return { from: request.from, to: request.to, timeZone: request.timeZone, by: request.by, rows, totals }
  }

  /** The names of the topics or agents reported (a day is its own label). */
  private async labels(organizationID: string, by: ReportGrouping, keys: string[]) {
    const { db } = this.deps.database
    const { agents, topics } = this.deps.repositories
    if (by === 'topic') {
      const all = await topics.listTopics(db, organizationID)
      return new Map(all.map((topic) => [String(topic.id), topic.name]))
    }
    const ids = keys.filter((key) => key !== '')
    if (by !== 'agent' || ids.length === 0) return new Map([['', '']])
    const names = await agents.agentNames(db, organizationID, ids)
    return new Map([['', ''], ...names.map(({ id, name }): [string, string] => [id, name])])
  }
}

/** By name, the cases without an agent last; the same order on every database. */
const byLabel = (a: ReportRow, b: ReportRow) =>
  Number(a.key === '') - Number(b.key === '') ||
  (a.label < b.label ? -1 : a.label > b.label ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
