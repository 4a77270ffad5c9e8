import { AppError, paramError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { AgentIdentity } from '../agents/agent.js'
import type { Message } from '../messages/message.js'
import type { MessageContent } from '../messages/message-types.js'
import type { MessagesService } from '../messages/messages.service.js'
import type { Repositories } from '../repositories.js'
import type { RoomsService } from '../rooms/rooms.service.js'
import type { TopicsService } from '../topics/topics.service.js'
import type { Assignment } from './assignment.js'
import { type Case, type CaseStatus, caseIs, mayRequeue, toCase } from './case.js'
import {
  type CaseEngine,
  type CaseRow,
  caseClosed,
  caseNotFound,
  type Outcome,
  type Trx,
  unchanged,
} from './case-engine.js'

export interface AgentCasesDependencies {
  database: Database
  clock: Clock
  engine: CaseEngine
  assignment: Assignment
  repositories: Pick<Repositories, 'cases' | 'agents' | 'messages'>
  rooms: RoomsService
  messages: MessagesService
  topics: TopicsService
}

const notYours = () => new AppError('forbidden', 'case is not assigned to you')

/** The agents' side of support cases (DESIGN §9, §10): the inbox, taking, passing on, replying, closing. */
export class AgentCases {
  constructor(private readonly deps: AgentCasesDependencies) {}

  /** The organization's cases for an agent's inbox: by status, topic, or only the agent's own. */
  async list(
    agent: AgentIdentity,
    filter: {
      status?: CaseStatus
      topicID?: number
      mine?: boolean
      before?: { created: number; caseID: string }
      limit: number
    },
  ): Promise<Case[]> {
    const rows = await this.deps.repositories.cases.listCases(this.deps.database.db, {
      organizationID: agent.organizationID,
      limit: filter.limit,
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.topicID ? { topicID: filter.topicID } : {}),
      ...(filter.mine ? { agentAccountID: agent.agentAccountID } : {}),
      ...(filter.before ? { before: filter.before } : {}),
    })
    return rows.map(toCase)
  }

  /** A case with what agents see beyond the visitor: the chatbot's summary, and its latest messages. */
  async detail(agent: AgentIdentity, caseID: string) {
    const { db } = this.deps.database
    const row = await this.deps.repositories.cases.findCase(db, caseID)
    if (!row || row.organization_id !== agent.organizationID) throw caseNotFound()
    const access = await this.deps.rooms.snapshot(row.room_id)
    const page = {
      roomID: row.room_id,
      direction: 'before' as const,
      bound: Number.MAX_SAFE_INTEGER,
      limit: 100,
    }
    const rows = (await this.deps.repositories.messages.listPage(db, page)).reverse()
    return {
      case: toCase(row),
      handoverSummary: row.handover_summary,
      messages: await this.deps.messages.toMessages(row.organization_id, access, rows),
    }
  }

  /** An agent takes a queued case: of agents racing for one case, exactly one wins. */
  async take(agent: AgentIdentity, caseID: string): Promise<Case> {
    const { outcome } = await this.deps.engine.change(caseID, async (trx, now) => {
      const row = await this.agentCase(trx, agent, caseID)
      if (row.status === 'closed') throw caseClosed()
      if (row.status !== 'queued') throw new AppError('conflict', 'case is not waiting for an agent')
      return this.deps.assignment.assignTo(trx, row, agent.agentAccountID, now)
    })
    return toCase(outcome.row as CaseRow)
  }

  /** An admin gives a waiting or assigned case to an agent of the organization. */
  async assign(admin: AgentIdentity, caseID: string, agentAccountID: string): Promise<Case> {
    if (admin.role !== 'admin') throw new AppError('forbidden', 'only admins assign cases')
    return this.moveToAgent(admin, caseID, agentAccountID, 'An admin assigned the case')
  }

  /**
   * The case's agent (or an admin) passes it to another agent, or to a topic's queue; a waiting
   * case also moves to another topic's queue by an agent of its topic.
   */
  async transfer(agent: AgentIdentity, caseID: string, to: { agentAccountID?: string; topicID?: number }) {
    if (to.agentAccountID)
      return this.moveToAgent(agent, caseID, to.agentAccountID, 'The case was transferred', true)
    if (!to.topicID) throw paramError('topicID', 'is required')
    const topic = await this.deps.topics.resolve(agent.organizationID, to.topicID)
    return this.passOn(caseID, async (trx, now) => {
      const row = await this.agentCase(trx, agent, caseID)
      if (row.status === 'closed') throw caseClosed()
      const agentTopics =
        agent.role === 'admin'
          ? []
          : await this.deps.repositories.agents.topicsOfAgent(trx, agent.agentAccountID)
      if (!mayRequeue(agent, row, agentTopics)) throw notYours()
      // Already waiting there (a retried transfer): nothing to do.
      if (row.status === 'queued' && row.topic_id === topic.topicID) return unchanged(row)
      const queued = await this.deps.engine.transition(trx, row, 'queued', now, {
        changes: { topic_id: topic.topicID, agent_account_id: null },
        action: 'case/transfer',
        text: `The case was transferred to ${topic.name}`,
      })
      // Not straight back to whoever just let it go.
      return this.deps.assignment.assignIfPossible(trx, queued, now, row.agent_account_id ?? undefined)
    })
  }

  /** An agent's reply in a case assigned to them. */
  send(
    agent: AgentIdentity,
    caseID: string,
    input: { localID: string; content: MessageContent },
  ): Promise<Message> {
    const find = async (trx: Trx) => {
      const row = await this.agentCase(trx, agent, caseID)
      if (row.status === 'closed') throw caseClosed()
      if (row.agent_account_id !== agent.agentAccountID) throw notYours()
      return row
    }
    return this.deps.engine.send(caseID, find, { senderID: `agent:${agent.agentAccountID}`, ...input })
  }

  /** The assigned agent (or an admin) closes the case; closing a closed case changes nothing. */
  close(agent: AgentIdentity, caseID: string): Promise<Case> {
    // A slot is freed: the oldest waiting case of the agent's topics is theirs (passOn).
    return this.passOn(caseID, async (trx, now) => {
      const row = await this.agentCase(trx, agent, caseID)
      const mayClose =
        agent.role === 'admin' || row.status === 'closed' || row.agent_account_id === agent.agentAccountID
      if (!mayClose) throw notYours()
      return this.deps.engine.close(trx, row, 'agent', now)
    })
  }

  /** An agent's status changes; coming online, they get the waiting cases they have room for. */
  async setStatus(agent: AgentIdentity, status: 'online' | 'away' | 'offline'): Promise<void> {
    const { agents } = this.deps.repositories
    await agents.updateAgent(this.deps.database.db, agent.agentAccountID, {
      status,
      updated: this.deps.clock.now(),
    })
    if (status === 'online') await this.deps.assignment.assignWaiting(agent.agentAccountID)
  }

  /** A deactivated agent's open cases go back to their topics' queues (and on to other agents). */
  async handBack(agentAccountID: string): Promise<void> {
    const text = 'The agent is no longer available; the case goes back to the queue'
    const stillTheirs = (row: CaseRow) => row.status === 'assigned' && row.agent_account_id === agentAccountID
    for (const { id } of await this.deps.repositories.cases.assignedCasesOf(
      this.deps.database.db,
      agentAccountID,
    )) {
      await this.deps.assignment.requeue(id, stillTheirs, {
        action: 'case/transfer',
        text,
        except: agentAccountID,
      })
    }
  }

  private moveToAgent(
    actor: AgentIdentity,
    caseID: string,
    agentAccountID: string,
    text: string,
    holderOnly = false,
  ) {
    return this.passOn(caseID, async (trx, now) => {
      const row = await this.agentCase(trx, actor, caseID)
      const target = await this.deps.repositories.agents.findAgent(trx, agentAccountID)
      if (!target || target.organization_id !== actor.organizationID)
        throw new AppError('notFound', `Agent ${agentAccountID} not found`)
      if (holderOnly) this.requireHolder(actor, row)
      if (row.status !== 'queued' && row.status !== 'assigned') throw caseIs(row.status as CaseStatus)
      return this.deps.assignment.assignTo(trx, row, agentAccountID, now, text)
    })
  }

  /** A change that may take the case from its agent, whose freed slot is then refilled from the queue. */
  private async passOn(caseID: string, work: (trx: Trx, now: number) => Promise<Outcome>): Promise<Case> {
    const { outcome } = await this.deps.engine.change(caseID, work)
    await this.deps.assignment.refillPreviousHolder(outcome)
    return toCase(outcome.row as CaseRow)
  }

  /** Only the case's agent, or an admin, may pass it on. */
  private requireHolder(agent: AgentIdentity, row: CaseRow): void {
    if (row.status === 'closed') throw caseClosed()
    if (agent.role !== 'admin' && row.agent_account_id !== agent.agentAccountID) throw notYours()
  }

  /** The case, if it belongs to the agent's organization (another's does not exist). */
  private async agentCase(trx: Trx, agent: AgentIdentity, caseID: string) {
    const row = await this.deps.repositories.cases.findCase(trx, caseID, { lock: true })
    if (!row || row.organization_id !== agent.organizationID) throw caseNotFound()
    return row
  }
}
