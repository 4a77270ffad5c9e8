import type { Kysely, Selectable } from 'kysely'
import { AppError, paramError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import { newID } from '../../lib/ids.js'
import type { Hub } from '../../realtime/hub.js'
import type { Database } from '../../storage/database.js'
import type { CasesTable, MessagesTable, Schema } from '../../storage/schema.js'
import {
  agentsHearingOfQueue,
  availableAgents,
  findAgent,
  markAssigned,
  topicsOfAgent,
  updateAgent,
} from '../agents/agents.repository.js'
import { findActiveChatbot } from '../chatbots/chatbots.repository.js'
import type { Chatbot, ChatbotsService } from '../chatbots/chatbots.service.js'
import { abandonPending, recordDelivery } from '../delivery/deliveries.repository.js'
import type { Message } from '../messages/message.js'
import { checkContent, type MessageContent, MessageType } from '../messages/message-types.js'
import { findBySenderLocalID, listPage, storeMessage } from '../messages/messages.repository.js'
import type { MessagesService } from '../messages/messages.service.js'
import type { OrganizationsService } from '../organizations/organizations.service.js'
import { RoomType } from '../rooms/room.js'
import { addParticipants, insertRoom } from '../rooms/rooms.repository.js'
import type { RoomsService } from '../rooms/rooms.service.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import type { TopicsService } from '../topics/topics.service.js'
import {
  type Case,
  type CaseStatus,
  type ClosedBy,
  canMove,
  caseIs,
  mayRequeue,
  newCaseID,
  toCase,
} from './case.js'
import {
  assignedCasesOf,
  botCasesOf,
  countOpenCases,
  findCase,
  insertCase,
  listCases,
  listCasesOfUser,
  lockVisitor,
  moveCase,
  oldestQueued,
} from './cases.repository.js'

type Trx = Kysely<Schema>

/** An agent acting on cases. */
export interface AgentActor {
  agentAccountID: string
  organizationID: string
  role: 'admin' | 'agent'
}
type CaseRow = Selectable<CasesTable>

/** What one event did: announced after its transaction commits. */
interface Outcome {
  row?: CaseRow | undefined
  /** The case before the event's first change: whoever followed it then hears of the change too. */
  before?: CaseRow | undefined
  messages: Selectable<MessagesTable>[]
  changed: boolean
}

export interface Dependencies {
  database: Database
  clock: Clock
  hub: Hub
  rooms: RoomsService
  messages: MessagesService
  topics: TopicsService
  chatbots: ChatbotsService
  organizations: OrganizationsService
}

const SYSTEM = 'system'
export const CLOSING_MESSAGE = 'This conversation has been closed.'
const chatbotSender = (chatbotID: string) => `chatbot:${chatbotID}`
const caseNotFound = () => new AppError('notFound', 'case not found')
const caseClosed = () => caseIs('closed')
const notYours = () => new AppError('forbidden', 'case is not assigned to you')

/**
 * Support cases (DESIGN §7, §8): one room each, the state machine of case.ts, and the three
 * chatbot events. Every change to one case is one transaction, run one at a time per case (in
 * order of arrival here; a row lock orders them across instances), and adds a system message and a
 * `case/update` event.
 */
export class CasesService {
  private readonly queues = new Map<string, Promise<unknown>>()

  constructor(private readonly deps: Dependencies) {}

  // ---- the visitor's side

  async create(
    client: ClientIdentity,
    input: { topicID?: number | undefined; message: string },
  ): Promise<Case> {
    const { organizations, topics, chatbots, database } = this.deps
    const content = checkContent({ type: MessageType.text, body: input.message, data: {} })
    const [maxOpen, topic, chatbot] = await Promise.all([
      organizations.maxOpenCases(client.organizationID),
      topics.resolve(client.organizationID, input.topicID),
      chatbots.active(client.organizationID),
    ])
    const now = this.deps.clock.now()
    const row: CaseRow = {
      id: newCaseID(),
      organization_id: client.organizationID,
      user_id: client.userID,
      topic_id: topic.topicID,
      status: chatbot ? 'bot' : 'queued',
      chatbot_id: chatbot?.chatbotID ?? null,
      agent_account_id: null,
      room_id: newID(),
      first_message: content.body,
      handover_summary: '',
      created: now,
      updated: now,
      closed_time: null,
      closed_by: null,
    }
    const outcome = await database.transaction(async (trx): Promise<Outcome> => {
      await lockVisitor(trx, client.userID, database.dialect)
      // Again here, locked: a chatbot deactivated meanwhile must not get the case.
      const current = await findActiveChatbot(trx, client.organizationID, { lock: true })
      row.status = current ? 'bot' : 'queued'
      row.chatbot_id = current?.id ?? null
      if ((await countOpenCases(trx, client.organizationID, client.userID)) >= maxOpen) {
        throw new AppError('conflict', 'too many open cases')
      }
      const room = {
        id: row.room_id,
        organization_id: row.organization_id,
        name: `Case ${row.id}`,
        image_url: '',
      }
      await insertRoom(trx, { ...room, type: RoomType.case, created: now, updated: now })
      await addParticipants(trx, row.room_id, [client.userID], now)
      await insertCase(trx, row)
      const opened = await this.systemMessage(trx, row, 'case/create', `Case ${row.id} opened`, now)
      const first = await this.store(trx, row, client.userID, newID(), content, now)
      return this.assignIfPossible(
        trx,
        { row, messages: [opened, first].filter(isDefined), changed: true },
        now,
      )
    })
    await this.announce(outcome)
    return toCase(outcome.row as CaseRow)
  }

  async list(client: ClientIdentity): Promise<Case[]> {
    return (await listCasesOfUser(this.deps.database.db, client.userID)).map(toCase)
  }

  async get(client: ClientIdentity, caseID: string): Promise<Case> {
    return toCase(await this.ownCase(this.deps.database.db, client, caseID))
  }

  /** A visitor's message in their case; while a chatbot has the case, it is queued for delivery. */
  async sendMessage(
    client: ClientIdentity,
    caseID: string,
    input: { localID: string; content: MessageContent },
  ): Promise<Message> {
    const content = checkContent(input.content)
    const outcome = await this.run(caseID, async (trx, now) => {
      const row = await this.ownCase(trx, client, caseID, { lock: true })
      if (row.status === 'closed') throw caseClosed()
      const message = await this.store(trx, row, client.userID, input.localID, content, now)
      return { row, messages: message ? [message] : [], changed: false }
    })
    return this.sentMessage(outcome, client.sessionID)
  }

  /** The visitor closes their case (closing a closed case changes nothing). */
  async close(client: ClientIdentity, caseID: string): Promise<Case> {
    const outcome = await this.run(caseID, async (trx, now) => {
      const row = await this.ownCase(trx, client, caseID, { lock: true })
      return this.closeCase(trx, row, 'user', now)
    })
    await this.announce(outcome)
    return toCase(outcome.row as CaseRow)
  }

  // ---- the agents' side

  /** The organization's cases for an agent's inbox: by status, topic, or only the agent's own. */
  async listForAgent(
    agent: AgentActor,
    filter: {
      status?: CaseStatus
      topicID?: number
      mine?: boolean
      after?: { created: number; caseID: string }
      limit: number
    },
  ) {
    const rows = await listCases(this.deps.database.db, {
      organizationID: agent.organizationID,
      limit: filter.limit,
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.topicID ? { topicID: filter.topicID } : {}),
      ...(filter.mine ? { agentAccountID: agent.agentAccountID } : {}),
      ...(filter.after ? { after: filter.after } : {}),
    })
    return rows.map(toCase)
  }

  /** An agent takes a queued case: of agents racing for one case, exactly one wins. */
  async take(agent: AgentActor, caseID: string): Promise<Case> {
    const outcome = await this.run(caseID, async (trx, now) => {
      const row = await this.agentCase(trx, agent, caseID)
      if (row.status === 'closed') throw caseClosed()
      if (row.status !== 'queued') throw new AppError('conflict', 'case is not waiting for an agent')
      return this.assignTo(trx, row, agent.agentAccountID, now)
    })
    await this.announce(outcome)
    return toCase(outcome.row as CaseRow)
  }

  /** A case with what agents see beyond the visitor: the chatbot's summary, and its latest messages. */
  async detailForAgent(agent: AgentActor, caseID: string) {
    const row = await findCase(this.deps.database.db, caseID)
    if (!row || row.organization_id !== agent.organizationID) throw caseNotFound()
    const access = await this.deps.rooms.snapshot(row.room_id)
    const rows = (
      await listPage(this.deps.database.db, {
        roomID: row.room_id,
        direction: 'before',
        bound: Number.MAX_SAFE_INTEGER,
        limit: 100,
      })
    ).reverse()
    return {
      case: toCase(row),
      handoverSummary: row.handover_summary,
      messages: await this.deps.messages.toMessages(row.organization_id, access, rows),
    }
  }

  /** An admin gives a waiting or assigned case to an agent of the organization. */
  async assign(admin: AgentActor, caseID: string, agentAccountID: string): Promise<Case> {
    if (admin.role !== 'admin') throw new AppError('forbidden', 'only admins assign cases')
    return this.moveToAgent(admin, caseID, agentAccountID, 'An admin assigned the case')
  }

  /**
   * The case's agent (or an admin) passes it to another agent, or to a topic's queue; a waiting
   * case also moves to another topic's queue by an agent of its topic.
   */
  async transfer(
    agent: AgentActor,
    caseID: string,
    to: { agentAccountID?: string; topicID?: number },
  ): Promise<Case> {
    if (to.agentAccountID)
      return this.moveToAgent(agent, caseID, to.agentAccountID, 'The case was transferred', true)
    if (!to.topicID) throw paramError('topicID', 'is required')
    const topic = await this.deps.topics.resolve(agent.organizationID, to.topicID)
    const outcome = await this.run(caseID, async (trx, now) => {
      const row = await this.agentCase(trx, agent, caseID)
      if (row.status === 'closed') throw caseClosed()
      const agentTopics = agent.role === 'admin' ? [] : await topicsOfAgent(trx, agent.agentAccountID)
      if (!mayRequeue(agent, row, agentTopics)) throw notYours()
      // Already waiting there (a retried transfer): nothing to do.
      if (row.status === 'queued' && row.topic_id === topic.topicID)
        return { row, messages: [], changed: false }
      const queued = await this.transition(trx, row, 'queued', now, {
        changes: { topic_id: topic.topicID, agent_account_id: null },
        action: 'case/transfer',
        text: `The case was transferred to ${topic.name}`,
      })
      // Not straight back to whoever just let it go.
      return this.assignIfPossible(trx, queued, now, row.agent_account_id ?? undefined)
    })
    await this.announce(outcome)
    await this.refillPreviousHolder(outcome)
    return toCase(outcome.row as CaseRow)
  }

  private async moveToAgent(
    actor: AgentActor,
    caseID: string,
    agentAccountID: string,
    text: string,
    holderOnly = false,
  ) {
    const outcome = await this.run(caseID, async (trx, now) => {
      const row = await this.agentCase(trx, actor, caseID)
      const target = await findAgent(trx, agentAccountID)
      if (!target || target.organization_id !== actor.organizationID)
        throw new AppError('notFound', `Agent ${agentAccountID} not found`)
      if (holderOnly) this.requireHolder(actor, row)
      if (row.status !== 'queued' && row.status !== 'assigned') throw caseIs(row.status as CaseStatus)
      return this.assignTo(trx, row, agentAccountID, now, text)
    })
    await this.announce(outcome)
    await this.refillPreviousHolder(outcome)
    return toCase(outcome.row as CaseRow)
  }

  /** The agent who held the case before the event has a free slot: the oldest waiting case is theirs. */
  private async refillPreviousHolder(outcome: Outcome): Promise<void> {
    const previous = outcome.before?.status === 'assigned' ? outcome.before.agent_account_id : null
    const stillTheirs = outcome.row?.status === 'assigned' && outcome.row.agent_account_id === previous
    if (outcome.changed && previous && !stillTheirs) await this.assignWaiting(previous)
  }

  /** Only the case's agent, or an admin, may pass it on. */
  private requireHolder(agent: AgentActor, row: CaseRow): void {
    if (row.status === 'closed') throw caseClosed()
    if (agent.role !== 'admin' && row.agent_account_id !== agent.agentAccountID) throw notYours()
  }

  /** An agent's reply in a case assigned to them. */
  async agentSend(
    agent: AgentActor,
    caseID: string,
    input: { localID: string; content: MessageContent },
  ): Promise<Message> {
    const content = checkContent(input.content)
    const senderID = `agent:${agent.agentAccountID}`
    const outcome = await this.run(caseID, async (trx, now) => {
      const row = await this.agentCase(trx, agent, caseID)
      if (row.status === 'closed') throw caseClosed()
      if (row.agent_account_id !== agent.agentAccountID) throw notYours()
      const message = await this.store(trx, row, senderID, input.localID, content, now)
      return { row, messages: message ? [message] : [], changed: false }
    })
    return this.sentMessage(outcome)
  }

  /** The assigned agent (or an admin) closes the case; closing a closed case changes nothing. */
  async agentClose(agent: AgentActor, caseID: string): Promise<Case> {
    const outcome = await this.run(caseID, async (trx, now) => {
      const row = await this.agentCase(trx, agent, caseID)
      if (
        agent.role !== 'admin' &&
        row.status !== 'closed' &&
        row.agent_account_id !== agent.agentAccountID
      ) {
        throw notYours()
      }
      return this.closeCase(trx, row, 'agent', now)
    })
    await this.announce(outcome)
    // A slot is free: the oldest waiting case of the agent's topics is theirs.
    await this.refillPreviousHolder(outcome)
    return toCase(outcome.row as CaseRow)
  }

  /** An agent's status changes; coming online, they get the waiting cases they have room for. */
  async agentStatus(agent: AgentActor, status: 'online' | 'away' | 'offline') {
    await updateAgent(this.deps.database.db, agent.agentAccountID, { status, updated: this.deps.clock.now() })
    if (status === 'online') await this.assignWaiting(agent.agentAccountID)
  }

  /**
   * Gives an available agent (come online, or with a free slot) the oldest waiting cases of their
   * topics, while they have room.
   */
  async assignWaiting(agentAccountID: string): Promise<void> {
    const { db } = this.deps.database
    const agent = await findAgent(db, agentAccountID)
    if (agent?.status !== 'online') return
    const topics = await topicsOfAgent(db, agentAccountID)
    for (;;) {
      const next = await oldestQueued(db, agent.organization_id, topics)
      if (!next) return
      const outcome = await this.run(next.id, async (trx, now) => {
        const row = (await findCase(trx, next.id, { lock: true })) as CaseRow
        const room =
          row.status === 'queued' && (await this.pickAgent(trx, row, agent.email)) === agentAccountID
        return room ? this.assignTo(trx, row, agentAccountID, now) : { row, messages: [], changed: false }
      })
      await this.announce(outcome)
      if (!outcome.changed) return
    }
  }

  // ---- the chatbot's side (the webhook)

  /** `messages`: the chatbot answers; allowed while it has the case. Retried localIDs add nothing. */
  async botMessages(
    chatbot: Chatbot,
    caseID: string,
    messages: { localID?: string | undefined; content: MessageContent }[],
  ) {
    const contents = messages.map((m) => ({ ...m, content: checkContent(m.content) }))
    const outcome = await this.run(caseID, async (trx, now) => {
      const row = await this.botCase(trx, chatbot, caseID)
      if (row.status === 'closed') throw caseClosed()
      if (row.status !== 'bot') throw new AppError('conflict', 'case is not handled by the chatbot')
      const sender = chatbotSender(chatbot.chatbotID)
      const stored: Selectable<MessagesTable>[] = []
      for (const { localID = newID(), content } of contents) {
        const message = await this.store(trx, row, sender, localID, content, now)
        if (message) stored.push(message)
      }
      return { row, messages: stored, changed: false }
    })
    await this.announce(outcome)
  }

  /** `handover_case`: to agents, in the given topic (or the case's). Repeating it changes nothing. */
  async botHandover(
    chatbot: Chatbot,
    caseID: string,
    handover: { topicID?: number | undefined; summary?: string | undefined; agentEmail?: string | undefined },
  ) {
    const topic = handover.topicID ? await this.topicOf(chatbot.organizationID, handover.topicID) : undefined
    const outcome = await this.run(caseID, async (trx, now) => {
      const row = await this.botCase(trx, chatbot, caseID)
      if (row.status === 'closed') throw caseClosed()
      if (row.status !== 'bot') return { row, messages: [], changed: false }
      const changes = { topic_id: topic ?? row.topic_id, handover_summary: handover.summary ?? '' }
      // Straight to the named agent when they work the topic and are free; else to the queue.
      const named = handover.agentEmail
        ? await this.pickAgent(trx, { ...row, ...changes }, handover.agentEmail)
        : undefined
      const text = 'The chatbot handed the case over to an agent'
      if (named) return this.assignTo(trx, { ...row, ...changes }, named, now, text)
      const queued = await this.transition(trx, row, 'queued', now, {
        changes,
        action: 'case/handover',
        text,
      })
      return this.assignIfPossible(trx, queued, now)
    })
    await this.announce(outcome)
  }

  /** `close_case`: allowed in any open state; closing a closed case changes nothing. */
  async botClose(chatbot: Chatbot, caseID: string, { sendClosingMessage = false } = {}) {
    const outcome = await this.run(caseID, async (trx, now) => {
      const row = await this.botCase(trx, chatbot, caseID)
      if (row.status === 'closed' || !sendClosingMessage) return this.closeCase(trx, row, 'chatbot', now)
      const content = { type: MessageType.text, body: CLOSING_MESSAGE, data: {} }
      const closing = await this.store(trx, row, chatbotSender(chatbot.chatbotID), newID(), content, now)
      const closed = await this.closeCase(trx, row, 'chatbot', now)
      return { ...closed, messages: [closing, ...closed.messages].filter(isDefined) }
    })
    await this.announce(outcome)
  }

  /** A chatbot that cannot be reached (for good, or for too long): its case goes to agents. */
  async handOverUnresponsive(caseID: string, reason: string): Promise<void> {
    await this.requeue(caseID, (row) => row.status === 'bot', { action: 'case/handover', text: reason })
  }

  /** Hands the open bot cases of deactivated chatbots over to agents. */
  async handOverFromChatbots(chatbotIDs: string[]): Promise<void> {
    const text = 'The chatbot is no longer active; the case goes to an agent'
    for (const { id } of await botCasesOf(this.deps.database.db, chatbotIDs)) {
      await this.requeue(id, (row) => row.status === 'bot', { action: 'case/handover', text })
    }
  }

  /** A deactivated agent's open cases go back to their topics' queues (and on to other agents). */
  async handBack(agentAccountID: string): Promise<void> {
    const text = 'The agent is no longer available; the case goes back to the queue'
    const stillTheirs = (row: CaseRow) => row.status === 'assigned' && row.agent_account_id === agentAccountID
    for (const { id } of await assignedCasesOf(this.deps.database.db, agentAccountID)) {
      await this.requeue(id, stillTheirs, { action: 'case/transfer', text, except: agentAccountID })
    }
  }

  /** Puts a case (if it still qualifies) back in its topic's queue, and on to an available agent. */
  private async requeue(
    caseID: string,
    qualifies: (row: CaseRow) => boolean,
    step: { action: string; text: string; except?: string },
  ): Promise<void> {
    const outcome = await this.run(caseID, async (trx, now) => {
      const row = (await findCase(trx, caseID, { lock: true })) as CaseRow
      if (!qualifies(row)) return { row, messages: [], changed: false }
      const queued = await this.transition(trx, row, 'queued', now, {
        changes: { agent_account_id: null },
        action: step.action,
        text: step.text,
      })
      return this.assignIfPossible(trx, queued, now, step.except)
    })
    await this.announce(outcome)
  }

  // ---- the machinery

  /** Runs one event of a case: after the case's earlier events, in one transaction. */
  private run(caseID: string, work: (trx: Trx, now: number) => Promise<Outcome>): Promise<Outcome> {
    const previous = this.queues.get(caseID) ?? Promise.resolve()
    const next = previous
      .catch(() => {})
      .then(() => this.deps.database.transaction((trx) => work(trx, this.deps.clock.now())))
    this.queues.set(caseID, next)
    void next
      .finally(() => {
        if (this.queues.get(caseID) === next) this.queues.delete(caseID)
      })
      .catch(() => {})
    return next
  }

  private async ownCase(
    db: Trx | Database['db'],
    client: ClientIdentity,
    caseID: string,
    { lock = false } = {},
  ) {
    const row = await findCase(db, caseID, { lock })
    if (!row || row.user_id !== client.userID || row.organization_id !== client.organizationID)
      throw caseNotFound()
    return row
  }

  /**
   * The agent auto-assignment picks for a case (DESIGN §10): online, working the case's topic,
   * under their maximum; the fewest open cases first, then the longest idle. `email` narrows the
   * choice to one agent.
   */
  private async pickAgent(
    trx: Trx,
    row: CaseRow,
    email?: string,
    exceptAgent?: string,
  ): Promise<string | undefined> {
    const candidates = await availableAgents(trx, {
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
  private async assignIfPossible(
    trx: Trx,
    outcome: Outcome,
    now: number,
    exceptAgent?: string,
  ): Promise<Outcome> {
    const row = outcome.row
    if (row?.status !== 'queued') return outcome
    const agentID = await this.pickAgent(trx, row, undefined, exceptAgent)
    if (!agentID) return outcome
    const assigned = await this.assignTo(trx, row, agentID, now)
    return {
      row: assigned.row,
      before: outcome.before ?? row,
      messages: [...outcome.messages, ...assigned.messages],
      changed: true,
    }
  }

  private async assignTo(
    trx: Trx,
    row: CaseRow,
    agentAccountID: string,
    now: number,
    text = 'An agent joined the conversation',
  ) {
    // Atomic with the deactivation's update of the same row: either the deactivation comes first
    // and this fails, or it waits for this commit and then finds the case to hand back.
    if (!(await markAssigned(trx, agentAccountID, now)))
      throw new AppError('conflict', 'the agent is deactivated')
    return this.transition(trx, row, 'assigned', now, {
      changes: {
        agent_account_id: agentAccountID,
        topic_id: row.topic_id,
        handover_summary: row.handover_summary,
      },
      action: 'case/assign',
      text,
    })
  }

  /** The case, if it belongs to the agent's organization (another's does not exist). */
  private async agentCase(trx: Trx, agent: AgentActor, caseID: string) {
    const row = await findCase(trx, caseID, { lock: true })
    if (!row || row.organization_id !== agent.organizationID) throw caseNotFound()
    return row
  }

  /** The case, if it belongs to this chatbot (another organization's or chatbot's case does not exist). */
  private async botCase(trx: Trx, chatbot: Chatbot, caseID: string) {
    const row = await findCase(trx, caseID, { lock: true })
    if (!row || row.organization_id !== chatbot.organizationID || row.chatbot_id !== chatbot.chatbotID) {
      throw caseNotFound()
    }
    return row
  }

  private async topicOf(organizationID: string, topicID: number): Promise<number> {
    try {
      return (await this.deps.topics.resolve(organizationID, topicID)).topicID
    } catch (error) {
      if (error instanceof AppError && error.kind === 'notFound')
        throw new AppError('invalidParam', 'topic is invalid', 'topicID')
      throw error
    }
  }

  private closeCase(trx: Trx, row: CaseRow, closedBy: ClosedBy, now: number): Promise<Outcome> {
    if (row.status === 'closed') return Promise.resolve({ row, messages: [], changed: false })
    return this.transition(trx, row, 'closed', now, {
      changes: { closed_time: now, closed_by: closedBy },
      action: 'case/close',
      text: `The case was closed by the ${closedBy === 'user' ? 'visitor' : closedBy}`,
    })
  }

  /** Moves the case (only along the state table) and records why in a system message. */
  private async transition(
    trx: Trx,
    row: CaseRow,
    to: CaseStatus,
    now: number,
    step: { changes: Partial<CaseRow>; action: string; text: string },
  ): Promise<Outcome> {
    const from = row.status as CaseStatus
    if (!canMove(from, to)) throw caseIs(from)
    const moved = await moveCase(trx, row.id, from, { ...step.changes, status: to, updated: now })
    if (!moved) throw new AppError('conflict', 'case changed meanwhile; try again')
    // Whatever the chatbot has not received yet, it will not need.
    if (from === 'bot') await abandonPending(trx, row.id, now)
    const message = await this.systemMessage(trx, moved, step.action, step.text, now)
    return { row: moved, before: row, messages: [message].filter(isDefined), changed: true }
  }

  private systemMessage(trx: Trx, row: CaseRow, action: string, text: string, now: number) {
    const content = {
      type: MessageType.system,
      body: text,
      data: { action, caseID: row.id, status: row.status },
    }
    return storeMessage(trx, { roomID: row.room_id, senderID: SYSTEM, localID: newID(), ...content, now })
  }

  /** Stores a message in the case's room; a visitor's message to a chatbot case is queued for it. */
  private async store(
    trx: Trx,
    row: CaseRow,
    senderID: string,
    localID: string,
    content: MessageContent,
    now: number,
  ) {
    const message = await storeMessage(trx, { roomID: row.room_id, senderID, localID, ...content, now })
    // A retry (the same sender and localID): the message stored before, to be announced again
    // (the first announcement may have died with its instance; clients drop duplicates by messageID).
    if (!message) return findBySenderLocalID(trx, senderID, localID, row.room_id)
    if (senderID === row.user_id && row.status === 'bot' && row.chatbot_id) {
      await recordDelivery(trx, {
        caseID: row.id,
        chatbotID: row.chatbot_id,
        messageID: message.id,
        seq: message.created,
        now,
      })
    }
    return message
  }

  /**
   * The agents who hear of a case on /connect (as `agent:<id>`): its agent while assigned; while
   * it waits, every agent of its topic and every admin (a topic nobody works has a queue too), so
   * queues update live.
   */
  private async agentsFollowing(row: CaseRow): Promise<string[]> {
    if (row.status === 'queued') {
      const ids = await agentsHearingOfQueue(this.deps.database.db, row.organization_id, row.topic_id)
      return ids.map((id) => `agent:${id}`)
    }
    return row.agent_account_id ? [`agent:${row.agent_account_id}`] : []
  }

  /** The message a send stored (or, for a retry, stored before), announced; the send's answer. */
  private async sentMessage(outcome: Outcome, exceptSessionID?: string) {
    const [message] = await this.announce(outcome, exceptSessionID)
    return message as Message
  }

  /** After the commit: the new messages to the room, and `case/update` to everyone in the case. */
  private async announce(outcome: Outcome, exceptSessionID?: string): Promise<Message[]> {
    const { row } = outcome
    if (!row) return []
    const [access, following, followed] = await Promise.all([
      this.deps.rooms.snapshot(row.room_id),
      this.agentsFollowing(row),
      outcome.before ? this.agentsFollowing(outcome.before) : [],
    ])
    // Those who followed the case before the change hear of it too (a queue loses the case it gave).
    const agents = [...new Set([...following, ...followed])]
    const messages = await this.deps.messages.announceNew(row.organization_id, access, outcome.messages, {
      exceptSessionID,
      alsoUserIDs: agents,
    })
    if (outcome.changed) {
      this.deps.hub.publish(
        { userIDs: [row.user_id, ...agents] },
        { eventName: 'case/update', data: toCase(row) },
      )
    }
    return messages
  }
}

const isDefined = <T>(value: T | undefined): value is T => value !== undefined
