import { useSyncExternalStore } from 'react'
import { call } from '../api'
import { EmptyState, ErrorNote, PageHeader } from '../components/ui'
import { fullTime, when } from '../format'
import { useLoad } from '../hooks'
import { texts } from '../texts'
import { useNames } from '../workspace'

/** The audit log: every admin change (never a secret), newest first. */
export function AuditLogPage() {
  const log = useLoad(() => call('admin/audit_log/list', { limit: 200 }), [])
  const names = useNames()
  const entries = log.data?.entries ?? []
  // Phones have no room for a detail column: the detail goes under the action instead.
  const narrow = useNarrow()
  return (
    <div className="page">
      <PageHeader
        title={texts.shell.auditLog}
        subtitle={texts.audit.subtitle}
        actions={
          <button type="button" className="btn small" disabled={log.loading} onClick={log.reload}>
            {texts.reports.refresh}
          </button>
        }
      />
      <ErrorNote error={log.error} />
      {log.data && entries.length === 0 ? (
        <EmptyState title={texts.audit.empty}>{texts.audit.emptyDetail}</EmptyState>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>{texts.audit.time}</th>
              <th>{texts.audit.who}</th>
              <th>{texts.audit.action}</th>
              {!narrow && <th>{texts.audit.detail}</th>}
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.auditID}>
                <td className="nowrap" title={fullTime(entry.created)}>
                  {when(entry.created)}
                </td>
                <td>
                  {(entry.agentAccountID && names.agent(entry.agentAccountID, '')) || (
                    <span className="mono wrap-anywhere">{entry.actor}</span>
                  )}
                </td>
                <td>
                  <span className="chip">{entry.action}</span>
                  {narrow && (
                    <div className="under">
                      <Detail detail={entry.detail} />
                    </div>
                  )}
                </td>
                {!narrow && (
                  <td>
                    <Detail detail={entry.detail} />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}

const NARROW = '(max-width: 760px)'

/** Whether the screen is as narrow as the stylesheet's phone layout. */
function useNarrow(): boolean {
  return useSyncExternalStore(
    (changed) => {
      const query = window.matchMedia(NARROW)
      query.addEventListener('change', changed)
      return () => query.removeEventListener('change', changed)
    },
    () => window.matchMedia(NARROW).matches,
  )
}

const show = (value: unknown): string =>
  typeof value === 'string'
    ? value
    : Array.isArray(value)
      ? value.map(show).join(', ')
      : JSON.stringify(value)

/** An entry's details as compact `key: value` pairs. */
function Detail({ detail }: { detail: Record<string, unknown> }) {
  const pairs = Object.entries(detail)
  if (pairs.length === 0) return <span className="muted">—</span>
  return (
    <dl className="detail-pairs mono">
      {pairs.map(([key, value]) => (
        <div key={key}>
          <dt>{key}:</dt> <dd>{show(value)}</dd>
        </div>
      ))}
    </dl>
  )
}
