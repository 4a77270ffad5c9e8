import { StatusDot } from '../components/ui'
import type { Agent } from '../types'
import { useNames, useWorkspace } from '../workspace'
import type { AccessAction } from './AgentAccess'

/** The organization's agents, with what an admin can do to each: edit, password, (re)activate. */
export function AgentTable({
  agents,
  onEdit,
  onAccess,
  onReactivate,
}: {
  agents: Agent[]
  onEdit: (agent: Agent) => void
  onAccess: (agent: Agent, what: AccessAction['what']) => void
  onReactivate: (agent: Agent) => void
}) {
  const { me } = useWorkspace()
  const names = useNames()
  return (
    <table className="table">
      <thead>
        <tr>
          <th>Name</th>
          <th className="hide-narrow">E-mail</th>
          <th>Role</th>
          <th className="hide-narrow">Topics</th>
          <th className="hide-narrow">Max cases</th>
          <th className="hide-narrow">Status</th>
          <th>
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {agents.map((agent) => (
          <tr key={agent.agentAccountID} className={agent.active ? undefined : 'muted'}>
            <td>
              <span className="with-dot">
                <StatusDot status={agent.status} />
                {agent.fullName}
                {agent.agentAccountID === me.agentAccountID && <span className="muted">(you)</span>}
                {!agent.active && <span className="chip">deactivated</span>}
              </span>
            </td>
            <td className="hide-narrow wrap-anywhere">{agent.email}</td>
            <td>
              <span className={`chip${agent.role === 'admin' ? ' chip-accent' : ''}`}>{agent.role}</span>
            </td>
            <td className="hide-narrow">
              {agent.topics.length === 0 ? (
                <span className="muted">none</span>
              ) : (
                agent.topics.map(names.topic).join(', ')
              )}
            </td>
            <td className="hide-narrow">{agent.maxConcurrentCases}</td>
            <td className="hide-narrow">{agent.status}</td>
            {/* Each button named with its agent: "Edit" alone is the same in every row. */}
            <td className="cell-actions">
              <button
                type="button"
                className="btn small"
                onClick={() => onEdit(agent)}
                aria-label={`Edit ${agent.fullName}`}
              >
                Edit
              </button>
              <button
                type="button"
                className="btn small"
                onClick={() => onAccess(agent, 'password')}
                aria-label={`Password… for ${agent.fullName}`}
              >
                Password…
              </button>
              {agent.active ? (
                <button
                  type="button"
                  className="btn small danger"
                  onClick={() => onAccess(agent, 'deactivate')}
                  aria-label={`Deactivate ${agent.fullName}`}
                >
                  Deactivate
                </button>
              ) : (
                <button
                  type="button"
                  className="btn small"
                  onClick={() => onReactivate(agent)}
                  aria-label={`Reactivate ${agent.fullName}`}
                >
                  Reactivate
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
