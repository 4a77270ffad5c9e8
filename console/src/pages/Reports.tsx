import { useMemo, useState } from 'react'
import { call } from '../api'
import { EmptyState, ErrorNote, PageHeader } from '../components/ui'
import { useLoad } from '../hooks'
import {
  browserTimeZone,
  type Grouping,
  inUnit,
  lastDays,
  type Report,
  rowName,
  span,
  timeUnit,
} from '../reports/figures'
import { ReportChart } from '../reports/ReportChart'
import { useWorkspace } from '../workspace'
import '../reports/reports.css'

const GROUPINGS: { value: Grouping; label: string }[] = [
  { value: 'day', label: 'Day' },
  { value: 'topic', label: 'Topic' },
  { value: 'agent', label: 'Agent' },
]

/**
 * Support reports: per day, topic or agent, the cases opened, handed over and closed, the median
 * first response and resolution times and the ratings, over a range of days (the last 30 at first)
 * in the browser's time zone. Admins see everyone's cases, agents their own.
 */
export function ReportsPage() {
  const { me } = useWorkspace()
  const [range, setRange] = useState(() => lastDays(30))
  const [by, setBy] = useState<Grouping>('day')
  const timeZone = useMemo(browserTimeZone, [])
  const report = useLoad(
    () => call('report/get', { from: range.from, to: range.to, timeZone, by }),
    [range.from, range.to, timeZone, by],
  )
  const data = report.data
  return (
    <div className="page reports">
      <PageHeader
        title="Reports"
        subtitle={`${me.role === 'admin' ? "Your organization's cases" : 'Your cases'}; days run midnight to midnight in the ${timeZone} time zone.`}
      />
      <form className="report-controls" onSubmit={(event) => event.preventDefault()}>
        <label>
          <span className="field-label">From</span>
          <input
            type="date"
            value={range.from}
            max={range.to}
            required
            onChange={(event) => event.target.value && setRange({ ...range, from: event.target.value })}
          />
        </label>
        <label>
          <span className="field-label">To</span>
          <input
            type="date"
            value={range.to}
            min={range.from}
            required
            onChange={(event) => event.target.value && setRange({ ...range, to: event.target.value })}
          />
        </label>
        <label>
          <span className="field-label">Group by</span>
          <select value={by} onChange={(event) => setBy(event.target.value as Grouping)}>
            {GROUPINGS.map((g) => (
              <option key={g.value} value={g.value}>
                {g.label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="btn small" disabled={report.loading} onClick={report.reload}>
          Refresh
        </button>
      </form>
      <ErrorNote error={report.error} />
      {data && <ReportView report={data} />}
    </div>
  )
}

function ReportView({ report }: { report: Report }) {
  const { totals, by, rows } = report
  const labels = useMemo(() => rows.map((row) => rowName(row, by)), [rows, by])
  const volume = useMemo(
    () => [
      { label: 'Opened', values: rows.map((r) => r.opened), color: '#4f6bed' },
      { label: 'Handed over', values: rows.map((r) => r.handedOver), color: '#e8a33d' },
      { label: 'Closed', values: rows.map((r) => r.closed), color: '#2f9e6e' },
    ],
    [rows],
  )
  // Times in the unit that reads best for them (10 s is not "0.2 minutes"); tooltips say each exactly.
  const unit = useMemo(
    () => timeUnit(rows.flatMap((r) => [r.firstResponseMedian, r.resolutionMedian])),
    [rows],
  )
  const times = useMemo(
    () => [
      {
        label: 'Median first response',
        values: inUnit(
          rows.map((r) => r.firstResponseMedian),
          unit,
        ),
        color: '#7048c8',
      },
      {
        label: 'Median resolution',
        values: inUnit(
          rows.map((r) => r.resolutionMedian),
          unit,
        ),
        color: '#c2303a',
      },
    ],
    [rows, unit],
  )
  const kind = by === 'day' ? 'line' : 'bar'
  return (
    <>
      <dl className="report-summary" aria-label="Totals">
        <Figure name="Opened" value={String(totals.opened)} />
        <Figure name="Handed over" value={String(totals.handedOver)} />
        <Figure name="Closed" value={String(totals.closed)} />
        <Figure name="Median first response" value={span(totals.firstResponseMedian)} />
        <Figure name="Median resolution" value={span(totals.resolutionMedian)} />
        <Figure
          name="Rating"
          value={totals.ratingAverage === null ? '–' : `${totals.ratingAverage.toFixed(1)} ★`}
          note={`${totals.ratings} rating${totals.ratings === 1 ? '' : 's'}`}
        />
      </dl>
      {rows.length === 0 ? (
        <EmptyState title="No cases">
          No case was opened, handed over, closed or rated in these days.
        </EmptyState>
      ) : (
        <>
          <div className="report-charts">
            <section>
              <h2>Cases</h2>
              <ReportChart
                kind={kind}
                labels={labels}
                series={volume}
                unit="cases"
                label={`Cases by ${by}`}
              />
            </section>
            <section>
              <h2>Median times</h2>
              <ReportChart
                kind={kind}
                labels={labels}
                series={times}
                unit={unit.name}
                label={`Median first response and resolution times by ${by}, in ${unit.name}`}
              />
            </section>
          </div>
          <ReportTable report={report} labels={labels} />
        </>
      )}
    </>
  )
}

function Figure({ name, value, note }: { name: string; value: string; note?: string }) {
  return (
    <div className="report-figure">
      <dt>{name}</dt>
      <dd>
        {value}
        {note && <span className="muted"> ({note})</span>}
      </dd>
    </div>
  )
}

const HEADINGS = ['Opened', 'Handed over', 'Answered', 'Median first response', 'Closed', 'Median resolution']

function ReportTable({ report, labels }: { report: Report; labels: string[] }) {
  const grouping = report.by === 'day' ? 'Day' : report.by === 'topic' ? 'Topic' : 'Agent'
  return (
    <div className="report-table">
      <table className="table">
        <caption>
          Figures by {report.by}, {report.from} to {report.to} ({report.timeZone})
        </caption>
        <thead>
          <tr>
            <th scope="col">{grouping}</th>
            {HEADINGS.map((heading) => (
              <th key={heading} scope="col" className="number">
                {heading}
              </th>
            ))}
            <th scope="col" className="number">
              Ratings
            </th>
            <th scope="col" className="number">
              Average rating
            </th>
          </tr>
        </thead>
        <tbody>
          {report.rows.map((row, i) => (
            <tr key={row.key}>
              <th scope="row">{labels[i]}</th>
              <td className="number">{row.opened}</td>
              <td className="number">{row.handedOver}</td>
              <td className="number">{row.firstResponses}</td>
              <td className="number">{span(row.firstResponseMedian)}</td>
              <td className="number">{row.closed}</td>
              <td className="number">{span(row.resolutionMedian)}</td>
              <td className="number">{row.ratings}</td>
              {/* No rating has no average: a dash, not 0. */}
              <td className="number">{row.ratingAverage === null ? '–' : row.ratingAverage.toFixed(1)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
