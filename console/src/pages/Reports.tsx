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
import { texts } from '../texts'

const GROUPINGS: { value: Grouping; label: string }[] = [
  { value: 'day', label: texts.reports.groupings.day },
  { value: 'topic', label: texts.reports.groupings.topic },
  { value: 'agent', label: texts.reports.groupings.agent },
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
        title={texts.shell.reports}
        subtitle={texts.reports.subtitle(me.role === 'admin', timeZone)}
      />
      <form className="report-controls" onSubmit={(event) => event.preventDefault()}>
        <label>
          <span className="field-label">{texts.reports.from}</span>
          <input
            type="date"
            value={range.from}
            max={range.to}
            required
            onChange={(event) => event.target.value && setRange({ ...range, from: event.target.value })}
          />
        </label>
        <label>
          <span className="field-label">{texts.reports.to}</span>
          <input
            type="date"
            value={range.to}
            min={range.from}
            required
            onChange={(event) => event.target.value && setRange({ ...range, to: event.target.value })}
          />
        </label>
        <label>
          <span className="field-label">{texts.reports.groupBy}</span>
          <select value={by} onChange={(event) => setBy(event.target.value as Grouping)}>
            {GROUPINGS.map((g) => (
              <option key={g.value} value={g.value}>
                {g.label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="btn small" disabled={report.loading} onClick={report.reload}>
          {texts.reports.refresh}
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
      { label: texts.reports.opened, values: rows.map((r) => r.opened), color: '#4f6bed' },
      { label: texts.reports.handedOver, values: rows.map((r) => r.handedOver), color: '#e8a33d' },
      { label: texts.reports.closed, values: rows.map((r) => r.closed), color: '#2f9e6e' },
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
        label: texts.reports.firstResponse,
        values: inUnit(
          rows.map((r) => r.firstResponseMedian),
          unit,
        ),
        color: '#7048c8',
      },
      {
        label: texts.reports.resolution,
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
      <dl className="report-summary" aria-label={texts.reports.totals}>
        <Figure name={texts.reports.opened} value={String(totals.opened)} />
        <Figure name={texts.reports.handedOver} value={String(totals.handedOver)} />
        <Figure name={texts.reports.closed} value={String(totals.closed)} />
        <Figure name={texts.reports.firstResponse} value={span(totals.firstResponseMedian)} />
        <Figure name={texts.reports.resolution} value={span(totals.resolutionMedian)} />
        <Figure
          name={texts.reports.rating}
          value={totals.ratingAverage === null ? '–' : `${totals.ratingAverage.toFixed(1)} ★`}
          note={texts.reports.ratings(totals.ratings)}
        />
      </dl>
      {rows.length === 0 ? (
        <EmptyState title={texts.reports.empty}>{texts.reports.emptyDetail}</EmptyState>
      ) : (
        <>
          <div className="report-charts">
            <section>
              <h2>{texts.reports.cases}</h2>
              <ReportChart
                kind={kind}
                labels={labels}
                series={volume}
                unit="cases"
                label={texts.reports.casesBy(texts.reports.by[by])}
              />
            </section>
            <section>
              <h2>{texts.reports.times}</h2>
              <ReportChart
                kind={kind}
                labels={labels}
                series={times}
                unit={unit.name}
                label={texts.reports.timesBy(texts.reports.by[by], texts.reports.units[unit.name])}
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

const HEADINGS = [
  texts.reports.opened,
  texts.reports.handedOver,
  texts.reports.answered,
  texts.reports.firstResponse,
  texts.reports.closed,
  texts.reports.resolution,
]

function ReportTable({ report, labels }: { report: Report; labels: string[] }) {
  const grouping = texts.reports.groupings[report.by]
  return (
    <div className="report-table">
      <table className="table">
        <caption>
          {texts.reports.caption(texts.reports.by[report.by], report.from, report.to, report.timeZone)}
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
              {texts.reports.ratingsHeading}
            </th>
            <th scope="col" className="number">
              {texts.reports.average}
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
