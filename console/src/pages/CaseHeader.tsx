import { Link } from 'wouter'
import { duration, fullTime, when } from '../format'
import { useNow } from '../hooks'
import type { Case } from '../types'
import { useNames } from '../workspace'
import { TagEditor } from './CaseTags'

const STATUS_LABEL: Record<Case['status'], string> = {
  bot: 'With the chatbot',
  queued: 'Waiting for an agent',
  assigned: 'Assigned',
  closed: 'Closed',
}

/** " since just now", " for 4 min": how long the case has waited, to follow "Waiting for an agent". */
const waited = (since: string) => (since === 'now' ? ' since just now' : ` for ${since}`)

/** The case's visitor, topic, state and tags, with the way back to the list on a phone. */
export function CaseHeader(props: {
  item: Case
  visitor: string
  backTo: string
  onChanged: (item: Case) => void
}) {
  const { item, visitor, backTo } = props
  const names = useNames()
  const now = useNow()
  return (
    <header className="case-header">
      <Link href={backTo} className="btn ghost small back" aria-label="Back to cases">
        ←
      </Link>
      <div className="case-title">
        <h2>{visitor}</h2>
        <p className="muted">
          <span className="chip">{names.topic(item.topicID)}</span> · opened {when(item.created, now)} ·{' '}
          <span title={fullTime(item.updated)}>
            {STATUS_LABEL[item.status]}
            {item.status === 'assigned' && ` to ${names.agent(item.agentAccountID)}`}
            {item.status === 'queued' && waited(duration(item.updated, now))}
            {item.status === 'closed' && item.closedBy && ` by the ${item.closedBy}`}
          </span>
        </p>
        <TagEditor item={item} onChanged={props.onChanged} />
      </div>
      <span className={`status status-${item.status}`} data-testid="case-status">
        {item.status}
      </span>
    </header>
  )
}
