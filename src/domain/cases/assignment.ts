import { AppError } from '../../errors/app-error.js'
import type { Database } from '../../storage/database.js'
import type { Repositories } from '../repositories.js'
import { type CaseEngine, type CaseRow, type Outcome, type Trx, unchanged } from './case-engine.js'

export interface AssignmentDependencies {
  database: Database
  engine: CaseEngine
  repositories: Pick<Repositories, 'cases' | 'agents'>
}

/**
 * Who gets a case (docs/reference/agent-api.md): auto-assignment of waiting cases to available agents, a slot freed
 * refilled from the queue, and cases put back in their topic's queue.
 */
export class Assignment {
  constructor(private readonly deps: AssignmentDependencies) {}

  /**
   * The agent auto-assignment picks for a case: online, working the case's topic, under their
   * maximum; the fewest open cases first, then the longest idle. `email` narrows the choice to one
   * agent; `exceptAgent` leaves one out.
   */
  async pickAgent(
    trx: Trx,
    row: CaseRow,
    { email, exceptAgent }: { email?: string | undefined; exceptAgent?: string | undefined } = {},
  ): Promise<string | undefined> {
    const candidates = await this.deps.repositories.agents.availableAgents(trx, {
      organizationID: row.organization_id,
      topicID: row.topic_id,
      lock: this.deps.database.dialect === 'postgres',
      ...(email ? { email } : {}),
    })
    const free = candidates
      .map((a) => ({ ...a, open: Number(a.open) }))
      .filter((a) => a.open < a.max_concurrent_cases && a.id !== exceptAgent)
      .sort((a, b) => a.open - b.open || a.last_assigned - b.last_assigned || a.id.localeCompare(b.id))
    return free[0]?.id
  }

  /** A queued case goes to an available agent at once, when there is one. */
  async assignIfPossible(trx: Trx, outcome: Outcome, now: number, exceptAgent?: string): Promise<Outcome> {
    const row = outcome.row
    if (row?.status !== 'queued') return outcome
    const agentID = await this.pickAgent(trx, row, { exceptAgent })
    if (!agentID) return outcome
    const assigned = await this.assignTo(trx, row, agentID, now)
    return {
      row: assigned.row,
      before: outcome.before ?? row,
      messages: [...outcome.messages, ...assigned.messages],
      changed: true,
    }
  }

  async assignTo(
    trx: Trx,
    row: CaseRow,
    agentAccountID: string,
    now: number,
    text = 'An agent joined the conversation',
    by = 'system',
  ) {
    // Atomic with the deactivation's update of the same row: either the deactivation comes first
    // and this fails, or it waits for this commit and then finds the case to hand back.
    if (!(await this.deps.repositories.agents.markAssigned(trx, agentAccountID, now)))
      throw new AppError('conflict', 'the agent is deactivated')
    return this.deps.engine.transition(trx, row, 'assigned', now, {
      changes: {
        agent_account_id: agentAccountID,
        topic_id: row.topic_id,
        handover_summary: row.handover_summary,
      },
      action: 'case/assign',
      text,
      by,
    })
  }

  /**
   * Gives an available agent (come online, or with a free slot) the oldest waiting cases of their
   * topics, while they have room.
   */
  async assignWaiting(agentAccountID: string): Promise<void> {
    const { db } = this.deps.database
    const { agents, cases } = this.deps.repositories
    const agent = await agents.findAgent(db, agentAccountID)
    if (agent?.status !== 'online') return
    const topics = await agents.topicsOfAgent(db, agentAccountID)
    for (;;) {
      const next = await cases.oldestQueued(db, agent.organization_id, topics)
      if (!next) return
      const { outcome } = await this.deps.engine.change(next.id, async (trx, now) => {
        const row = (await cases.findCase(trx, next.id, { lock: true })) as CaseRow
        const hasRoom =
          row.status === 'queued' &&
          (await this.pickAgent(trx, row, { email: agent.email })) === agentAccountID
        return hasRoom ? this.assignTo(trx, row, agentAccountID, now) : unchanged(row)
      })
      if (!outcome.changed) return
    }
  }

  /** The agent who held the case before the change has a free slot: the oldest waiting case is theirs. */
  async refillPreviousHolder(outcome: Outcome): Promise<void> {
    const previous = outcome.before?.status === 'assigned' ? outcome.before.agent_account_id : null
    const stillTheirs = outcome.row?.status === 'assigned' && outcome.row.agent_account_id === previous
    if (outcome.changed && previous && !stillTheirs) await this.assignWaiting(previous)
  }

  /** Puts a case (if it still qualifies) back in its topic's queue, and on to an available agent. */
  async requeue(
    caseID: string,
    qualifies: (row: CaseRow) => boolean,
    step: { action: string; text: string; except?: string },
  ): Promise<void> {
    await this.deps.engine.change(caseID, async (trx, now) => {
      const row = (await this.deps.repositories.cases.findCase(trx, caseID, { lock: true })) as CaseRow
      if (!qualifies(row)) return unchanged(row)
      const queued = await this.deps.engine.transition(trx, row, 'queued', now, {
        changes: { agent_account_id: null },
        action: step.action,
        text: step.text,
      })
      return this.assignIfPossible(trx, queued, now, step.except)
    })
  }
}
