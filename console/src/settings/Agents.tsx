import { type FormEvent, useState } from 'react'
import { call } from '../api'
import { Dialog, EmptyState, ErrorNote, PageHeader } from '../components/ui'
import { useAction, useLoad } from '../hooks'
import { texts } from '../texts'
import type { Agent, Role } from '../types'
import { useWorkspace } from '../workspace'
import { type AccessAction, AccessDialog } from './AgentAccess'
import { AgentTable } from './AgentTable'

const asRole = (value: string): Role => (value === 'admin' ? 'admin' : 'agent')

/** Agents: who answers cases, which topics, how many at once; admins also see these settings. */
export function AgentsPage() {
  const agents = useLoad(() => call('admin/agent/list'), [])
  const { reloadTeam } = useWorkspace()
  const [editing, setEditing] = useState<Agent>()
  const [access, setAccess] = useState<AccessAction>()
  const changed = () => Promise.all([agents.reload(), reloadTeam()])
  const reactivating = useAction()
  const reactivate = async (agent: Agent) => {
    await reactivating.run(() => call('admin/agent/reactivate', { agentAccountID: agent.agentAccountID }))
    await changed()
  }
  const list = agents.data?.agents ?? []
  return (
    <div className="page">
      <PageHeader title={texts.shell.agents} subtitle={texts.agents.subtitle} />
      <NewAgentForm onCreated={changed} />
      <ErrorNote error={agents.error || reactivating.error} />
      {agents.data && list.length === 0 ? (
        <EmptyState title={texts.agents.empty} />
      ) : (
        <AgentTable
          agents={list}
          onEdit={setEditing}
          onAccess={(agent, what) => setAccess({ agent, what })}
          onReactivate={reactivate}
        />
      )}
      <AccessDialog action={access} onClose={() => setAccess(undefined)} onDone={changed} />
      <Dialog
        title={texts.agents.editWho(editing?.fullName ?? texts.agents.anAgent)}
        open={editing !== undefined}
        onClose={() => setEditing(undefined)}
      >
        {editing && (
          <EditAgentForm
            key={editing.agentAccountID}
            agent={editing}
            onClose={() => setEditing(undefined)}
            onSaved={changed}
          />
        )}
      </Dialog>
    </div>
  )
}

/** A new agent or admin account; they start with the default topic and can be edited after. */
function NewAgentForm({ onCreated }: { onCreated: () => Promise<unknown> }) {
  const [email, setEmail] = useState('')
  const [fullName, setFullName] = useState('')
  const [role, setRole] = useState<Role>('agent')
  const [password, setPassword] = useState('')
  const [max, setMax] = useState('5')
  const creating = useAction()
  const create = async (event: FormEvent) => {
    event.preventDefault()
    const agent = await creating.run(() =>
      call('admin/agent/create', {
        email,
        fullName,
        role,
        password,
        maxConcurrentCases: Number(max),
      }),
    )
    if (!agent) return
    setEmail('')
    setFullName('')
    setRole('agent')
    setPassword('')
    setMax('5')
    await onCreated()
  }
  return (
    <form className="card stack" onSubmit={create}>
      <div>
        <h2>{texts.agents.newAgent}</h2>
        <p className="muted">{texts.agents.newAgentDetail}</p>
      </div>
      <div className="inline-form">
        <label>
          {texts.login.email}
          <input
            required
            type="email"
            autoComplete="off"
            maxLength={255}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            placeholder={texts.agents.emailPlaceholder}
          />
        </label>
        <label>
          {texts.agents.fullName}
          <input
            required
            autoComplete="off"
            maxLength={255}
            value={fullName}
            onChange={(e) => setFullName(e.target.value)}
            placeholder={texts.agents.namePlaceholder}
          />
        </label>
        <RoleSelect role={role} onChange={setRole} />
        <label>
          {texts.login.password}
          <input
            required
            type="password"
            autoComplete="new-password"
            minLength={8}
            maxLength={1024}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            placeholder={texts.agents.passwordPlaceholder}
          />
        </label>
        <MaxCasesInput value={max} onChange={setMax} />
        <button type="submit" className="btn primary" disabled={creating.pending}>
          {texts.agents.create}
        </button>
      </div>
      <ErrorNote error={creating.error} />
    </form>
  )
}

function RoleSelect({ role, onChange }: { role: Role; onChange: (role: Role) => void }) {
  return (
    <label>
      {texts.agents.role}
      <select value={role} onChange={(e) => onChange(asRole(e.target.value))}>
        <option value="agent">{texts.agents.roleNames.agent}</option>
        <option value="admin">{texts.agents.roleNames.admin}</option>
      </select>
    </label>
  )
}

function MaxCasesInput({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <label>
      {texts.agents.maxConcurrent}
      <input
        className="narrow-number"
        required
        type="number"
        inputMode="numeric"
        min={1}
        max={1000}
        step={1}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </label>
  )
}

function EditAgentForm({
  agent,
  onClose,
  onSaved,
}: {
  agent: Agent
  onClose: () => void
  onSaved: () => Promise<unknown>
}) {
  const { me, setMe, team } = useWorkspace()
  const [fullName, setFullName] = useState(agent.fullName)
  const [role, setRole] = useState<Role>(agent.role)
  const [topics, setTopics] = useState<number[]>(agent.topics)
  const [max, setMax] = useState(String(agent.maxConcurrentCases))
  const saving = useAction()
  const isMe = agent.agentAccountID === me.agentAccountID
  const toggleTopic = (topicID: number, on: boolean) =>
    setTopics((current) => (on ? [...current, topicID] : current.filter((id) => id !== topicID)))
  const save = async (event: FormEvent) => {
    event.preventDefault()
    const answer = await saving.run(() =>
      call('admin/agent/update', {
        agentAccountID: agent.agentAccountID,
        fullName,
        role,
        topics,
        maxConcurrentCases: Number(max),
      }),
    )
    if (!answer) return
    if (isMe) setMe(answer)
    onClose()
    await onSaved()
  }
  return (
    <form className="stack" onSubmit={save}>
      <label>
        {texts.agents.fullName}
        <input required maxLength={255} value={fullName} onChange={(e) => setFullName(e.target.value)} />
      </label>
      <RoleSelect role={role} onChange={setRole} />
      {isMe && role === 'agent' && agent.role === 'admin' && <p className="notice">{texts.agents.demoted}</p>}
      <fieldset className="choices">
        <legend>{texts.shell.topics}</legend>
        {team.topics.map((topic) => (
          <label key={topic.topicID} className="choice">
            <input
              type="checkbox"
              checked={topics.includes(topic.topicID)}
              onChange={(e) => toggleTopic(topic.topicID, e.target.checked)}
            />
            {topic.name}
          </label>
        ))}
      </fieldset>
      {topics.length === 0 && <p className="muted">{texts.agents.noTopic}</p>}
      <MaxCasesInput value={max} onChange={setMax} />
      <ErrorNote error={saving.error} />
      <div className="actions">
        <button type="button" className="btn ghost" onClick={onClose}>
          {texts.transfer.cancel}
        </button>
        <button type="submit" className="btn primary" disabled={saving.pending}>
          {texts.agents.save}
        </button>
      </div>
    </form>
  )
}
