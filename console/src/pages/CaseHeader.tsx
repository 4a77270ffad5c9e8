import { Link } from 'wouter'
import { duration, fullTime, when } from '../format'
import { useNow } from '../hooks'
import { texts } from '../texts'
import type { Case } from '../types'
import { useNames } from '../workspace'
import { TagEditor } from './CaseTags'

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
      <Link href={backTo} className="btn ghost small back" aria-label={texts.caseHeader.back}>
        ←
      </Link>
      <div className="case-title">
        <h2>{visitor}</h2>
        <p className="muted">
          <span className="chip">{names.topic(item.topicID)}</span> ·{' '}
          {texts.caseHeader.opened(when(item.created, now))} ·{' '}
          <span title={fullTime(item.updated)}>
            {texts.caseHeader.state[item.status]}
            {item.status === 'assigned' && texts.caseHeader.assignedTo(names.agent(item.agentAccountID))}
            {item.status === 'queued' && texts.caseHeader.waited(duration(item.updated, now))}
            {item.status === 'closed' && item.closedBy && texts.caseHeader.closedBy(item.closedBy)}
          </span>
        </p>
        <TagEditor item={item} onChanged={props.onChanged} />
      </div>
      <span className={`status status-${item.status}`} data-testid="case-status">
        {texts.statusName[item.status]}
      </span>
    </header>
  )
}
