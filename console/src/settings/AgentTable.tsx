import { StatusDot } from '../components/ui'
import { texts } from '../texts'
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
          <th>{texts.topics.name}</th>
          <th className="hide-narrow">{texts.login.email}</th>
          <th>{texts.agents.role}</th>
          <th className="hide-narrow">{texts.shell.topics}</th>
          <th className="hide-narrow">{texts.agents.maxCases}</th>
          <th className="hide-narrow">{texts.keys.status}</th>
          <th>
            <span className="visually-hidden">{texts.keys.actions}</span>
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
                {agent.agentAccountID === me.agentAccountID && (
                  <span className="muted">{texts.agents.you}</span>
                )}
                {!agent.active && <span className="chip">{texts.agents.deactivated}</span>}
              </span>
            </td>
            <td className="hide-narrow wrap-anywhere">{agent.email}</td>
            <td>
              <span className={`chip${agent.role === 'admin' ? ' chip-accent' : ''}`}>
                {texts.agents.roles[agent.role]}
              </span>
            </td>
            <td className="hide-narrow">
              {agent.topics.length === 0 ? (
                <span className="muted">{texts.agents.none}</span>
              ) : (
                agent.topics.map(names.topic).join(', ')
              )}
            </td>
            <td className="hide-narrow">{agent.maxConcurrentCases}</td>
            <td className="hide-narrow">{texts.agentStatus[agent.status]}</td>
            {/* Each button named with its agent: "Edit" alone is the same in every row. */}
            <td className="cell-actions">
              <button
                type="button"
                className="btn small"
                onClick={() => onEdit(agent)}
                aria-label={texts.agents.editWho(agent.fullName)}
              >
                {texts.agents.edit}
              </button>
              <button
                type="button"
                className="btn small"
                onClick={() => onAccess(agent, 'password')}
                aria-label={texts.agents.passwordFor(agent.fullName)}
              >
                {texts.agents.passwordAction}
              </button>
              {agent.active ? (
                <button
                  type="button"
                  className="btn small danger"
                  onClick={() => onAccess(agent, 'deactivate')}
                  aria-label={texts.agents.deactivateWho(agent.fullName)}
                >
                  {texts.agents.deactivate}
                </button>
              ) : (
                <button
                  type="button"
                  className="btn small"
                  onClick={() => onReactivate(agent)}
                  aria-label={texts.agents.reactivateWho(agent.fullName)}
                >
                  {texts.agents.reactivate}
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
