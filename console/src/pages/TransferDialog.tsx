import { type ChangeEvent, type FormEvent, type ReactNode, useEffect, useState } from 'react'
import { call } from '../api'
import { Dialog, ErrorNote, StatusDot } from '../components/ui'
import { useAction } from '../hooks'
import { texts } from '../texts'
import type { Agent, Case, Team } from '../types'
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

/** What `me` may do with a case in the dialog: give it to a colleague (how), and move it to a topic. */
export function passOnChoices(item: Case, me: Agent) {
  const holder = item.status === 'assigned' && item.agentAccountID === me.agentAccountID
  const admin = me.role === 'admin'
  // A waiting case is also its topic's agents' to move (docs/reference/agent-api.md); assigned ones are the holder's.
  const topicAgent = item.status === 'queued' && me.topics.includes(item.topicID)
  const toColleague = holder ? 'transfer' : admin ? 'assign' : undefined
  const toTopic = holder || admin || topicAgent
  const title = holder
    ? texts.transfer.transferTitle
    : admin
      ? texts.transfer.assignTitle
      : texts.transfer.moveTitle
  return { toColleague, toTopic, title } as const
}

/** The online agents of each topic, by topicID: where a case will be answered soon. */
export function onlineByTopic(team: Team): Map<number, number> {
  const online = new Map<number, number>()
  for (const agent of team.agents.filter((a) => a.status === 'online'))
    for (const topicID of agent.topics) online.set(topicID, (online.get(topicID) ?? 0) + 1)
  return online
}

/**
 * Pass a case on: to a colleague, or to a topic's queue. Admins use it to assign a waiting case
 * (or reassign another agent's) to someone; a topic's agents, to move a waiting case elsewhere.
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
  const choices = passOnChoices(item, me)
  const colleagues = team.agents.filter(
    (agent) => agent.active && agent.agentAccountID !== item.agentAccountID,
  )
  // Where a case waits already is no move.
  const topics = team.topics.filter((topic) => item.status !== 'queued' || topic.topicID !== item.topicID)
  const online = onlineByTopic(team)
  const [kind, id = ''] = target.split(':')
  const chosenTopic = kind === 'topic' ? topics.find((topic) => String(topic.topicID) === id) : undefined
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const answer = await run(() =>
      kind === 'topic'
        ? call('case/transfer', { id: item.caseID, topicID: Number(id) })
        : choices.toColleague === 'assign'
          ? call('case/assign', { id: item.caseID, agentAccountID: id })
          : call('case/transfer', { id: item.caseID, agentAccountID: id }),
    )
    if (!answer) return
    onChanged(answer.case)
    onClose()
  }
  const radio = (value: string) => ({
    type: 'radio' as const,
    name: 'target',
    value,
    checked: target === value,
    onChange: (event: ChangeEvent<HTMLInputElement>) => setTarget(event.target.value),
  })
  return (
    <Dialog title={choices.title} open={open} onClose={onClose}>
      <form onSubmit={submit} className="stack">
        {choices.toColleague && (
          <fieldset className="choices">
            <legend>{texts.transfer.toColleague}</legend>
            {colleagues.length === 0 && <p className="muted">{texts.transfer.noColleague}</p>}
            {colleagues.map((agent) => (
              <label key={agent.agentAccountID} className="choice">
                <input {...radio(`agent:${agent.agentAccountID}`)} />
                <StatusDot status={agent.status} /> {agent.fullName}{' '}
                <span className="muted">{texts.agentStatus[agent.status]}</span>
              </label>
            ))}
          </fieldset>
        )}
        {choices.toTopic && (
          <fieldset className="choices">
            <legend>
              {item.status === 'queued' ? texts.transfer.toOtherTopic : texts.transfer.backToTopic}
            </legend>
            {topics.map((topic) => (
              <label key={topic.topicID} className="choice">
                <input {...radio(`topic:${topic.topicID}`)} />
                {topic.name}{' '}
                <span className="muted">{texts.transfer.online(online.get(topic.topicID) ?? 0)}</span>
              </label>
            ))}
          </fieldset>
        )}
        {chosenTopic && !online.get(chosenTopic.topicID) && (
          <p className="warn-note" role="status">
            {texts.transfer.noneOnline(chosenTopic.name)}
          </p>
        )}
        <ErrorNote error={error} />
        <div className="actions">
          <button type="button" className="btn ghost" onClick={onClose}>
            {texts.transfer.cancel}
          </button>
          <button type="submit" className="btn primary" disabled={!target || pending}>
            {kind === 'topic'
              ? texts.transfer.move
              : choices.toColleague === 'assign'
                ? texts.transfer.assign
                : texts.transfer.transfer}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
