import { AppError, paramError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import { TYPING_REPEAT_MS, TypingNotices } from '../../lib/typing-notices.js'
import type { Database } from '../../storage/database.js'
import type { AgentIdentity } from '../agents/agent.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import { type Message, nonUserSender } from '../messages/message.js'
import type { MessageContent } from '../messages/message-types.js'
import type { MessagesService } from '../messages/messages.service.js'
import type { Repositories } from '../repositories.js'
import type { RoomsService } from '../rooms/rooms.service.js'
import type { TopicsService } from '../topics/topics.service.js'
import type { Assignment } from './assignment.js'
import { type CaseStatus, caseIs, mayRequeue, type TaggedCase } from './case.js'
import {
  type CaseEngine,
  type CaseRow,
  caseClosed,
  caseNotFound,
  type Outcome,
  type Trx,
  unchanged,
} from './case-engine.js'
import { notYours, requireActing } from './case-messages.js'
import { caseOfOrganization } from './case-of-organization.js'
import type { AgentCase, CaseRows, InboxFilter } from './case-rows.js'
import { normalizeTags } from './case-tags.js'

export interface AgentCasesDependencies {
  database: Database
  clock: Clock
  engine: CaseEngine
  assignment: Assignment
  repositories: Pick<Repositories, 'cases' | 'agents' | 'messages' | 'rooms'>
  rooms: RoomsService
  messages: MessagesService
  topics: TopicsService
  rows: CaseRows
  happenings: Dispatcher
}

type Work = (trx: Trx, now: number) => Promise<Outcome>

/** Agents' typing notices remembered for coalescing (one per agent and case); beyond, the oldest go. */
const MAX_TYPING_CASES = 10_000
/** At most this many of the visitor's messages are announced as read by one read mark (the newest). */
const READ_ANNOUNCED = 100

/**
 * The agents' side of support cases (docs/reference/agent-api.md): the inbox, taking, passing on, replying,
 * typing, read marks, closing.
 */
export class AgentCases {
  private readonly typingNotices: TypingNotices

  constructor(private readonly deps: AgentCasesDependencies) {
    this.typingNotices = new TypingNotices(deps.clock, TYPING_REPEAT_MS, MAX_TYPING_CASES)
  }

  /** The organization's cases for an agent's inbox (with visitor and last message): by status, topic, or mine. */
  async list(agent: AgentIdentity, filter: InboxFilter): Promise<AgentCase[]> {
    const rows = await this.deps.repositories.cases.listCases(this.deps.database.db, {
      organizationID: agent.organizationID,
      limit: filter.limit,
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.topicID ? { topicID: filter.topicID } : {}),
      ...(filter.mine ? { agentAccountID: agent.agentAccountID } : {}),
      ...(filter.tags?.length ? { tags: normalizeTags(filter.tags, 'tags', false) } : {}),
      ...(filter.before ? { before: filter.before } : {}),
    })
    return this.deps.rows.describe(agent.organizationID, rows)
  }

  /** A case with what agents see beyond the visitor: the chatbot's summary, and its latest messages. */
  async detail(agent: AgentIdentity, caseID: string) {
    const { db } = this.deps.database
    const row = await this.agentCase(db, agent, caseID)
    const access = await this.deps.rooms.snapshot(row.room_id)
    const page = {
      roomID: row.room_id,
      direction: 'before' as const,
      bound: Number.MAX_SAFE_INTEGER,
      limit: 100,
    }
    const rows = (await this.deps.repositories.messages.listPage(db, page)).reverse()
    return {
      case: (await this.deps.rows.tagged([row]))[0] as TaggedCase,
      handoverSummary: row.handover_summary,
      messages: await this.deps.messages.toMessages(row.organization_id, access, rows),
    }
  }

  /** An agent takes a queued case: of agents racing for one case, exactly one wins. */
  async take(agent: AgentIdentity, caseID: string): Promise<TaggedCase> {
    const { outcome } = await this.deps.engine.change(caseID, async (trx, now) => {
      const row = await this.agentCase(trx, agent, caseID, { lock: true })
      if (row.status === 'closed') throw caseClosed()
      if (row.status !== 'queued') throw new AppError('conflict', 'case is not waiting for an agent')
      return this.deps.assignment.assignTo(trx, row, agent.agentAccountID, now)
    })
    return (await this.deps.rows.tagged([outcome.row as CaseRow]))[0] as TaggedCase
  }

  /** An admin gives a waiting or assigned case to an agent of the organization. */
  async assign(admin: AgentIdentity, caseID: string, agentAccountID: string): Promise<TaggedCase> {
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
      const row = await this.agentCase(trx, agent, caseID, { lock: true })
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

  /** A reply of the case's agent, or of an admin. */
  send(
    agent: AgentIdentity,
    caseID: string,
    input: { localID: string; content: MessageContent },
  ): Promise<Message> {
    const find = async (trx: Trx) => {
      const row = await this.agentCase(trx, agent, caseID, { lock: true })
      requireActing(agent, row)
      return row
    }
    return this.deps.engine.send(caseID, find, { senderID: `agent:${agent.agentAccountID}`, ...input })
  }

  /**
   * The case's agent (or an admin) starts (or stops) typing: `chat/startTyping|stopTyping {roomID, user}` to the
   * visitor, `user` being the agent as messages show them. Coalesced like a socket's notices: the
   * same notice again within 5 s is not relayed.
   */
  async typing(agent: AgentIdentity, caseID: string, typing: boolean): Promise<void> {
    const { db } = this.deps.database
    const row = await this.agentCase(db, agent, caseID)
    requireActing(agent, row)
    const eventName = typing ? 'chat/startTyping' : 'chat/stopTyping'
    const key = `${agent.agentAccountID}:${caseID}`
    if (!this.typingNotices.isNews(key, eventName)) return
    const senderID = `agent:${agent.agentAccountID}`
    const [names, { participants }] = await Promise.all([
      this.deps.repositories.agents.agentNames(db, agent.organizationID, [agent.agentAccountID]),
      this.deps.rooms.snapshot(row.room_id),
    ])
    const user = nonUserSender(senderID, names[0]?.name ?? '')
    const userIDs = participants.map((p) => p.user_id)
    await this.deps.happenings.tell('typing.changed', { roomID: row.room_id, user, typing, userIDs })
    this.typingNotices.relayed(key, eventName)
  }

  /**
   * The case's agent has read the case up to `messageID` (default: its newest message): the
   * agents' read mark of the case's room moves there (never back), so the visitor's messages up to
   * it are read, and the visitor (and the case's agents) get `chat/updateMessage` for those that
   * just became read (the newest 100). Only the agent the case is (or was, once closed) assigned
   * to reads for the visitor: an admin looking in, or a chatbot, does not.
   */
  async markRead(agent: AgentIdentity, caseID: string, messageID?: string): Promise<void> {
    const { db } = this.deps.database
    const { rooms, messages } = this.deps.repositories
    const row = await this.agentCase(db, agent, caseID)
    if (row.agent_account_id !== agent.agentAccountID) throw notYours()
    const room = await rooms.findRoom(db, row.room_id)
    if (!room) throw caseNotFound()
    let upTo = Number(room.last_message_created)
    if (messageID) {
      const [message] = await messages.findMessages(db, [messageID])
      if (!message || message.room_id !== row.room_id)
        throw new AppError('notFound', `Message ${messageID} not found`)
      upTo = Number(message.created)
    }
    const from = Number(room.agents_read_up_to)
    // Already read that far, or another request moved the mark further meanwhile (and announced).
    if (upTo <= from || !(await rooms.advanceAgentsRead(db, row.room_id, upTo))) return
    const read = await messages.sentBetween(db, {
      roomID: row.room_id,
      senderID: row.user_id,
      after: from,
      upTo,
      limit: READ_ANNOUNCED,
    })
    const access = await this.deps.rooms.snapshot(row.room_id)
    await this.deps.messages.announceUpdated(row.organization_id, access, read.reverse())
  }

  /** The room of a case of the organization, which any of its agents may view (and watch live). */
  async roomOfCase(organizationID: string, caseID: string): Promise<string> {
    const row = await caseOfOrganization(
      this.deps.database.db,
      this.deps.repositories.cases,
      organizationID,
      caseID,
    )
    return row.room_id
  }

  /** The agents following the case whose room this is (`agent:<id>`); none for other rooms. */
  followersOfRoom(roomID: string): Promise<string[]> {
    return this.deps.engine.agentsFollowingRoom(roomID)
  }

  /** The assigned agent (or an admin) closes the case; closing a closed case changes nothing. */
  close(agent: AgentIdentity, caseID: string): Promise<TaggedCase> {
    // A slot is freed: the oldest waiting case of the agent's topics is theirs (passOn).
    return this.passOn(caseID, async (trx, now) => {
      const row = await this.agentCase(trx, agent, caseID, { lock: true })
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
    const assigned = await this.deps.repositories.cases.assignedCasesOf(this.deps.database.db, agentAccountID)
    for (const { id } of assigned)
      await this.deps.assignment.requeue(id, stillTheirs, {
        action: 'case/transfer',
        text,
        except: agentAccountID,
      })
  }

  private moveToAgent(
    actor: AgentIdentity,
    caseID: string,
    agentAccountID: string,
    text: string,
    holderOnly = false,
  ) {
    return this.passOn(caseID, async (trx, now) => {
      const row = await this.agentCase(trx, actor, caseID, { lock: true })
      const target = await this.deps.repositories.agents.findAgent(trx, agentAccountID)
      if (!target || target.organization_id !== actor.organizationID)
        throw new AppError('notFound', `Agent ${agentAccountID} not found`)
      if (holderOnly) this.requireHolder(actor, row)
      if (row.status !== 'queued' && row.status !== 'assigned') throw caseIs(row.status as CaseStatus)
      return this.deps.assignment.assignTo(trx, row, agentAccountID, now, text)
    })
  }

  /** A change that may take the case from its agent, whose freed slot is then refilled from the queue. */
  private async passOn(caseID: string, work: Work): Promise<TaggedCase> {
    const { outcome } = await this.deps.engine.change(caseID, work)
    await this.deps.assignment.refillPreviousHolder(outcome)
    return (await this.deps.rows.tagged([outcome.row as CaseRow]))[0] as TaggedCase
  }

  /** Only the case's agent, or an admin, may pass it on. */
  private requireHolder(agent: AgentIdentity, row: CaseRow): void {
    if (row.status === 'closed') throw caseClosed()
    if (agent.role !== 'admin' && row.agent_account_id !== agent.agentAccountID) throw notYours()
  }

  /** The case, if it belongs to the agent's organization (another's does not exist). */
  private agentCase(db: Trx, agent: AgentIdentity, caseID: string, options?: { lock: boolean }) {
    return caseOfOrganization(db, this.deps.repositories.cases, agent.organizationID, caseID, options)
  }
}
