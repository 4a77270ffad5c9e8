import { type FormEvent, type ReactNode, useEffect, useState } from 'react'
import { call } from '../api'
import { Dialog, ErrorNote, StatusDot } from '../components/ui'
import { useAction } from '../hooks'
import type { Case } from '../types'
import { useWorkspace } from '../workspace'

/** A button that opens the transfer (or, for admins, assign) dialog of a case. */
export function TransferButton({
  item,
  onChanged,
  children,
}: {
  item: Case
  onChanged: (item: Case) => void
  children: ReactNode
}) {
  const [open, setOpen] = useState(false)
  return (
    <>
      <button type="button" className="btn" onClick={() => setOpen(true)}>
        {children}
      </button>
      <TransferDialog item={item} open={open} onClose={() => setOpen(false)} onChanged={onChanged} />
    </>
  )
}

/**
 * Pass a case on: to a colleague, or back to a topic's queue. Admins use it to assign a waiting
 * case (or reassign another agent's) to someone.
 */
function TransferDialog({
  item,
  open,
  onClose,
  onChanged,
}: {
  item: Case
  open: boolean
  onClose: () => void
  onChanged: (item: Case) => void
}) {
  const { me, team, reloadTeam } = useWorkspace()
  const [target, setTarget] = useState('')
  // Who is online now, not when the console was opened.
  useEffect(() => {
    if (open) void reloadTeam()
  }, [open, reloadTeam])
  const { pending, error, run } = useAction()
  // Holders transfer; an admin assigns a case that is not theirs.
  const assigning = item.agentAccountID !== me.agentAccountID
  const colleagues = team.agents.filter(
    (agent) => agent.active && agent.agentAccountID !== item.agentAccountID,
  )
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const [kind, id = ''] = target.split(':')
    const answer = await run(() =>
      assigning
        ? call<{ case: Case }>('case/assign', { id: item.caseID, agentAccountID: id })
        : call<{ case: Case }>(
            'case/transfer',
            kind === 'topic'
              ? { id: item.caseID, topicID: Number(id) }
              : { id: item.caseID, agentAccountID: id },
          ),
    )
    if (!answer) return
    onChanged(answer.case)
    onClose()
  }
  return (
    <Dialog title={assigning ? 'Assign this case' : 'Transfer this case'} open={open} onClose={onClose}>
      <form onSubmit={submit} className="stack">
        <fieldset className="choices">
          <legend>To a colleague</legend>
          {colleagues.length === 0 && <p className="muted">No one else is on the team yet.</p>}
          {colleagues.map((agent) => (
            <label key={agent.agentAccountID} className="choice">
              <input
                type="radio"
                name="target"
                value={`agent:${agent.agentAccountID}`}
                checked={target === `agent:${agent.agentAccountID}`}
                onChange={(event) => setTarget(event.target.value)}
              />
              <StatusDot status={agent.status} /> {agent.fullName}{' '}
              <span className="muted">{agent.status}</span>
            </label>
          ))}
        </fieldset>
        {!assigning && (
          <fieldset className="choices">
            <legend>Back to a topic's queue</legend>
            {team.topics.map((topic) => (
              <label key={topic.topicID} className="choice">
                <input
                  type="radio"
                  name="target"
                  value={`topic:${topic.topicID}`}
                  checked={target === `topic:${topic.topicID}`}
                  onChange={(event) => setTarget(event.target.value)}
                />
                {topic.name}
              </label>
            ))}
          </fieldset>
        )}
        <ErrorNote error={error} />
        <div className="actions">
          <button type="button" className="btn ghost" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={!target || pending}>
            {assigning ? 'Assign' : 'Transfer'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
