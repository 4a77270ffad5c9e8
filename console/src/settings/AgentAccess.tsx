import { type FormEvent, useState } from 'react'
import { call } from '../api'
import { Dialog, ErrorNote } from '../components/ui'
import { useAction } from '../hooks'
import { texts } from '../texts'
import type { Agent } from '../types'
import { useWorkspace } from '../workspace'

/** What an admin does to an agent's access: set a password, or deactivate the account. */
export interface AccessAction {
  agent: Agent
  what: 'password' | 'deactivate'
}

/** The dialog of an access action: a password form (your own needs the current one), or a confirmation. */
export function AccessDialog({
  action,
  onClose,
  onDone,
}: {
  action: AccessAction | undefined
  onClose: () => void
  onDone: () => Promise<unknown>
}) {
  const { me } = useWorkspace()
  const name = action?.agent.fullName ?? 'agent'
  const isMe = action?.agent.agentAccountID === me.agentAccountID
  const title =
    action?.what === 'deactivate'
      ? texts.agents.deactivateWho(name)
      : isMe
        ? texts.access.changeYours
        : texts.access.setFor(name)
  const done = async () => {
    onClose()
    await onDone()
  }
  return (
    <Dialog title={title} open={action !== undefined} onClose={onClose}>
      {action?.what === 'deactivate' && (
        <DeactivateForm agent={action.agent} onClose={onClose} onDone={done} />
      )}
      {action?.what === 'password' && isMe && <OwnPasswordForm onClose={onClose} onDone={done} />}
      {action?.what === 'password' && !isMe && (
        <TemporaryPasswordForm agent={action.agent} onClose={onClose} onDone={done} />
      )}
    </Dialog>
  )
}

interface FormProps {
  onClose: () => void
  onDone: () => Promise<unknown>
}

function DeactivateForm({ agent, onClose, onDone }: FormProps & { agent: Agent }) {
  const deactivating = useAction()
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const answer = await deactivating.run(() =>
      call('admin/agent/deactivate', { agentAccountID: agent.agentAccountID }),
    )
    if (answer) await onDone()
  }
  return (
    <form className="stack" onSubmit={submit}>
      <p>{texts.access.deactivateDetail(agent.fullName)}</p>
      <ErrorNote error={deactivating.error} />
      <Buttons onClose={onClose} pending={deactivating.pending} label={texts.agents.deactivate} danger />
    </form>
  )
}

/** An admin sets another agent's password: a temporary one, to be changed after signing in. */
function TemporaryPasswordForm({ agent, onClose, onDone }: FormProps & { agent: Agent }) {
  const [password, setPassword] = useState('')
  const setting = useAction()
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const answer = await setting.run(() =>
      call('admin/agent/set_password', { agentAccountID: agent.agentAccountID, password }),
    )
    if (answer) await onDone()
  }
  return (
    <form className="stack" onSubmit={submit}>
      <p className="muted">{texts.access.temporaryDetail(agent.fullName)}</p>
      <PasswordInput label={texts.access.temporary} value={password} onChange={setPassword} />
      <ErrorNote error={setting.error} />
      <Buttons onClose={onClose} pending={setting.pending} label={texts.access.setPassword} />
    </form>
  )
}

/** Your own password: the current one proves it is you; your other sessions end. */
export function OwnPasswordForm({ onClose, onDone }: FormProps) {
  const [currentPassword, setCurrent] = useState('')
  const [newPassword, setNew] = useState('')
  const changing = useAction()
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const answer = await changing.run(() => call('auth/change_password', { currentPassword, newPassword }))
    if (answer) await onDone()
  }
  return (
    <form className="stack" onSubmit={submit}>
      <PasswordInput label={texts.access.current} value={currentPassword} onChange={setCurrent} current />
      <PasswordInput label={texts.access.newPassword} value={newPassword} onChange={setNew} />
      <p className="muted">{texts.access.othersEnd}</p>
      <ErrorNote error={changing.error} />
      <Buttons onClose={onClose} pending={changing.pending} label={texts.access.change} />
    </form>
  )
}

function PasswordInput({
  label,
  value,
  onChange,
  current = false,
}: {
  label: string
  value: string
  onChange: (value: string) => void
  current?: boolean
}) {
  return (
    <label>
      {label}
      <input
        required
        type="password"
        autoComplete={current ? 'current-password' : 'new-password'}
        minLength={current ? 1 : 8}
        maxLength={1024}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </label>
  )
}

function Buttons({
  onClose,
  pending,
  label,
  danger = false,
}: {
  onClose: () => void
  pending: boolean
  label: string
  danger?: boolean
}) {
  return (
    <div className="actions">
      <button type="button" className="btn ghost" onClick={onClose}>
        {texts.transfer.cancel}
      </button>
      <button type="submit" className={`btn ${danger ? 'danger' : 'primary'}`} disabled={pending}>
        {label}
      </button>
    </div>
  )
}
