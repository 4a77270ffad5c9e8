import { AppError, paramError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { AgentIdentity } from '../agents/agent.js'
import type { Repositories } from '../repositories.js'
import { type Grouping, type ReportFigures, tally } from './aggregate.js'
import { DayMemory } from './day-memory.js'
import { DAY_MS, dayNumber, localDays, zoneFormatter } from './local-days.js'
import { eventsOfDays } from './reports.repository.js'

/** At most this much memory for the days of events an instance keeps. */
const MEMORY_BYTES = 64 * 1024 * 1024

/** The longest range one report covers, in days. */
export const MAX_REPORT_DAYS = 366

export type ReportGrouping = Grouping

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

export type { ReportFigures }

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

const none = (): ReportFigures => ({
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

/**
 * Support reports (docs/reference/agent-api.md, "Reports"): per local day, topic or agent, the cases opened, handed over
 * and closed, the median first response and resolution times, and the ratings given. Admins see
 * every case of their organization; an agent sees the figures of the cases they hold (or held
 * when the cases closed) only.
 */
export class Reports {
  constructor(
    private readonly deps: {
      database: Database
      clock: Clock
      repositories: Pick<Repositories, 'agents' | 'topics'>
    },
  ) {}

  /** Days of events this instance read (some 6 MB per 200,000 cases a year). */
  private readonly memory = new DayMemory(MEMORY_BYTES)

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
    const events = await eventsOfDays(
      this.deps.database,
      this.memory,
      agent.organizationID,
      [Math.floor(days.start / DAY_MS), Math.floor((days.end - 1) / DAY_MS)],
      this.deps.clock.now(),
    )
    const { groups, total } = tally(events, {
      grouping: request.by,
      start: days.start,
      end: days.end,
      spans: days.spans,
      firstDay: days.firstDay,
      dayCount: days.dates.length,
      topicID: request.topicID,
      agentAccountID: agent.role === 'admin' ? request.agentAccountID : agent.agentAccountID,
    })
    const totals = total
    // Every day has a row, also without cases (a chart's axis); topics and agents only with some.
    const figures =
      request.by === 'day'
        ? new Map(days.dates.map((date, day) => [date, groups.get(day) ?? none()]))
        : new Map([...groups].map(([key, figures]) => [String(key), figures]))
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
