import { type FormEvent, useState } from 'react'
import { call } from '../api'
import { Dialog, EmptyState, ErrorNote, PageHeader } from '../components/ui'
import { useAction, useLoad } from '../hooks'
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
      <PageHeader
        title="Agents"
        subtitle="Agents answer the cases of their topics, up to their maximum at once; admins also manage these settings. Someone who leaves is deactivated: signed out at once, their open cases back in the queue."
      />
      <NewAgentForm onCreated={changed} />
      <ErrorNote error={agents.error || reactivating.error} />
      {agents.data && list.length === 0 ? (
        <EmptyState title="No agents yet" />
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
        title={`Edit ${editing?.fullName ?? 'agent'}`}
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
        <h2>New agent</h2>
        <p className="muted">They start with the default topic; edit them to give them others.</p>
      </div>
      <div className="inline-form">
        <label>
          E-mail
          <input
            required
            type="email"
            autoComplete="off"
            maxLength={255}
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            placeholder="ada@example.com"
          />
        </label>
        <label>
          Full name
          <input
            required
            autoComplete="off"
            maxLength={255}
            value={fullName}
            onChange={(e) => setFullName(e.target.value)}
            placeholder="Ada Lovelace"
          />
        </label>
        <RoleSelect role={role} onChange={setRole} />
        <label>
          Password
          <input
            required
            type="password"
            autoComplete="new-password"
            minLength={8}
            maxLength={1024}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            placeholder="At least 8 characters"
          />
        </label>
        <MaxCasesInput value={max} onChange={setMax} />
        <button type="submit" className="btn primary" disabled={creating.pending}>
          Create agent
        </button>
      </div>
      <ErrorNote error={creating.error} />
    </form>
  )
}

function RoleSelect({ role, onChange }: { role: Role; onChange: (role: Role) => void }) {
  return (
    <label>
      Role
      <select value={role} onChange={(e) => onChange(asRole(e.target.value))}>
        <option value="agent">Agent</option>
        <option value="admin">Admin</option>
      </select>
    </label>
  )
}

function MaxCasesInput({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <label>
      Max concurrent cases
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
        Full name
        <input required maxLength={255} value={fullName} onChange={(e) => setFullName(e.target.value)} />
      </label>
      <RoleSelect role={role} onChange={setRole} />
      {isMe && role === 'agent' && agent.role === 'admin' && (
        <p className="notice">As an agent you can no longer open these settings.</p>
      )}
      <fieldset className="choices">
        <legend>Topics</legend>
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
      {topics.length === 0 && <p className="muted">With no topic, no cases are assigned to them.</p>}
      <MaxCasesInput value={max} onChange={setMax} />
      <ErrorNote error={saving.error} />
      <div className="actions">
        <button type="button" className="btn ghost" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="btn primary" disabled={saving.pending}>
          Save
        </button>
      </div>
    </form>
  )
}
