import type { Selectable } from 'kysely'
import type { ReportFigures, ReportRequest, ReportRow } from '../../src/domain/reports/reports.js'
import type { CasesTable } from '../../src/storage/schema.js'

// Support reports (docs/reference/agent-api.md, "Reports") computed the plain way, for tests to compare with: every
// event of every case, its local date by Intl, filtered, grouped, medians by sorting.

interface Event {
  kind: 'opened' | 'handedOver' | 'closed' | 'rated'
  time: number
  value: number | null
  topic: number
  agent: string | null
}

function eventsOf(row: Selectable<CasesTable>): Event[] {
  const of = { topic: Number(row.topic_id), agent: row.agent_account_id }
  const n = (value: unknown) => (value === null ? null : Number(value))
  const created = Number(row.created)
  const handed = n(row.handed_over_at)
  const response = n(row.first_response_at)
  const closed = n(row.closed_time)
  const events: Event[] = [{ kind: 'opened', time: created, value: null, ...of }]
  if (handed !== null)
    events.push({
      kind: 'handedOver',
      time: handed,
      value: response === null ? null : response - handed,
      ...of,
    })
  if (closed !== null) events.push({ kind: 'closed', time: closed, value: closed - created, ...of })
  if (row.rated_at !== null && row.rating !== null)
    events.push({ kind: 'rated', time: Number(row.rated_at), value: Number(row.rating), ...of })
  return events
}

const median = (values: number[]) => {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const n = sorted.length
  return (
    ((sorted[Math.floor((n + 1) / 2) - 1] as number) + (sorted[Math.floor((n + 2) / 2) - 1] as number)) / 2
  )
}

function figures(events: Event[]): ReportFigures {
  const of = (kind: Event['kind']) => events.filter((event) => event.kind === kind)
  const responses = of('handedOver').flatMap((event) => (event.value === null ? [] : [event.value]))
  const ratings = of('rated').map((event) => event.value as number)
  const distribution = [1, 2, 3, 4, 5].map((star) => ratings.filter((rating) => rating === star).length)
  const points = distribution.reduce((sum, count, i) => sum + count * (i + 1), 0)
  return {
    opened: of('opened').length,
    handedOver: of('handedOver').length,
    firstResponses: responses.length,
    firstResponseMedian: median(responses),
    closed: of('closed').length,
    resolutionMedian: median(of('closed').map((event) => event.value as number)),
    ratings: ratings.length,
    ratingAverage: ratings.length > 0 ? Math.round((points / ratings.length) * 100) / 100 : null,
    ratingDistribution: distribution,
  }
}

/** The dates from..to ('YYYY-MM-DD', both included). */
function datesBetween(from: string, to: string): string[] {
  const dates: string[] = []
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000)
    dates.push(new Date(t).toISOString().slice(0, 10))
  return dates
}

/**
 * The report of cases `rows` for `request`, seen by `viewer` (an agent sees only their cases);
 * topics and agents labelled by `labels` (else by their key).
 */
export function referenceReport(
  rows: Selectable<CasesTable>[],
  request: ReportRequest,
  viewer: { role: 'admin' | 'agent'; agentAccountID: string },
  labels: Map<string, string> = new Map(),
): { rows: ReportRow[]; totals: ReportFigures } {
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone: request.timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  })
  const agent = viewer.role === 'admin' ? request.agentAccountID : viewer.agentAccountID
  const events = rows
    .flatMap(eventsOf)
    .map((event) => ({ ...event, date: format.format(event.time) }))
    .filter(
      (event) =>
        event.date >= request.from &&
        event.date <= request.to &&
        (request.topicID === undefined || event.topic === request.topicID) &&
        (agent === undefined || event.agent === agent),
    )
  const keyOf = (event: (typeof events)[number]) =>
    request.by === 'day' ? event.date : request.by === 'topic' ? String(event.topic) : (event.agent ?? '')
  const keys = request.by === 'day' ? datesBetween(request.from, request.to) : [...new Set(events.map(keyOf))]
  const reportRows = keys.map((key) => ({
    key,
    label: request.by === 'day' ? key : (labels.get(key) ?? key),
    ...figures(events.filter((event) => keyOf(event) === key)),
  }))
  if (request.by !== 'day')
    reportRows.sort(
      (a, b) =>
        Number(a.key === '') - Number(b.key === '') ||
        (a.label < b.label ? -1 : a.label > b.label ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    )
  return { rows: reportRows, totals: figures(events) }
}
