import { useState } from 'react'
import { call } from '../api'
import { EmptyState, ErrorNote, PageHeader } from '../components/ui'
import { fullTime, when } from '../format'
import { useAction, useLoad } from '../hooks'
import { texts } from '../texts'
import type { Answer } from '../types'

type Report = Answer<'moderation_report/get_list'>['reports'][number]
type Status = 'open' | 'resolved'
type Action = 'resolve' | 'delete_message' | 'deactivate_user'

const t = texts.moderation

/** Moderation: users' reports of messages and users, and what the admin does with each. */
export function ModerationPage() {
  const [status, setStatus] = useState<Status>('open')
  const [older, setOlder] = useState<Report[]>([])
  const reports = useLoad(() => call('moderation_report/get_list', { status }), [status])
  const acting = useAction()
  const loading = useAction()
  const list = [...(reports.data?.reports ?? []), ...older]
  const [hasMore, setHasMore] = useState(false)
  const more = hasMore || (older.length === 0 && Boolean(reports.data?.hasMore))
  const show = (next: Status) => {
    setOlder([])
    setHasMore(false)
    setStatus(next)
  }
  const loadOlder = async () => {
    const page = await loading.run(() =>
      call('moderation_report/get_list', { status, beforeID: list.at(-1)?.reportID }),
    )
    if (!page) return
    setOlder([...older, ...page.reports])
    setHasMore(page.hasMore)
  }
  const resolve = async (report: Report, action: Action) => {
    if (action !== 'resolve' && !window.confirm(t.confirm[action](report.reportedUser.fullname))) return
    const done = await acting.run(() =>
      call('moderation_report/resolve', { reportID: report.reportID, action }),
    )
    if (!done) return
    setOlder([])
    await reports.reload()
  }
  return (
    <div className="page">
      <PageHeader
        title={t.title}
        subtitle={t.subtitle}
        actions={
          <label>
            {t.show}{' '}
            <select
              value={status}
              onChange={(e) => show(e.target.value === 'resolved' ? 'resolved' : 'open')}
            >
              <option value="open">{t.open}</option>
              <option value="resolved">{t.resolved}</option>
            </select>
          </label>
        }
      />
      <ErrorNote error={acting.error || loading.error || reports.error} />
      {reports.data && list.length === 0 ? (
        <EmptyState title={status === 'open' ? t.empty : t.emptyResolved}>{t.emptyDetail}</EmptyState>
      ) : (
        <table className="table" aria-label={t.title}>
          <thead>
            <tr>
              <th>{t.time}</th>
              <th>{t.reported}</th>
              <th>{t.what}</th>
              <th className="hide-narrow">{t.by}</th>
              <th>
                {status === 'open' ? (
                  <span className="visually-hidden">{texts.keys.actions}</span>
                ) : (
                  t.outcome
                )}
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((report) => (
              <tr key={report.reportID}>
                <td className="nowrap" title={fullTime(report.created)}>
                  {when(report.created)}
                </td>
                <td>{report.reportedUser.fullname || report.reportedUser.userID}</td>
                <td className="wrap-anywhere">
                  <span className="chip">{report.category}</span> {report.reason}
                  <div className="under muted">{reported(report)}</div>
                </td>
                <td className="hide-narrow">{report.reporter.fullname || report.reporter.userID}</td>
                <td className="cell-actions">
                  {report.status === 'resolved' ? (
                    <span className="chip">{t.resolution(report.resolution)}</span>
                  ) : (
                    <Actions report={report} pending={acting.pending} onResolve={resolve} />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {more && (
        <button
          type="button"
          className="btn small"
          disabled={loading.pending}
          onClick={() => void loadOlder()}
        >
          {t.older}
        </button>
      )}
    </div>
  )
}

/** What was reported: the message as it is now, or the user. */
function reported(report: Report): string {
  if (report.messageID === null) return t.aUser
  if (!report.message || report.message.isDeleted) return t.deletedMessage
  return t.message(report.message.body)
}

function Actions(props: {
  report: Report
  pending: boolean
  onResolve: (report: Report, action: Action) => void
}) {
  const { report, pending, onResolve } = props
  const who = report.reportedUser.fullname || report.reportedUser.userID
  const button = (action: Action, label: string, danger = false) => (
    <button
      type="button"
      className={`btn small${danger ? ' danger' : ''}`}
      aria-label={t.actionOn[action](who)}
      disabled={pending}
      onClick={() => onResolve(report, action)}
    >
      {label}
    </button>
  )
  return (
    <>
      {button('resolve', t.resolve)}{' '}
      {report.messageID !== null && report.message && !report.message.isDeleted && (
        <>{button('delete_message', t.deleteMessage, true)} </>
      )}
      {/^\d+$/.test(report.reportedUser.userID) && button('deactivate_user', t.deactivate, true)}
    </>
  )
}
