import type { Selectable } from 'kysely'
import { AppError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { MessagesTable } from '../../storage/schema.js'
import type { ChannelName } from '../channels/channel.js'
import type { ChatbotsService } from '../chatbots/chatbots.service.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Message } from '../messages/message.js'
import { checkContent, type MessageContent, MessageType } from '../messages/message-types.js'
import type { OrganizationsService } from '../organizations/organizations.service.js'
import type { Repositories } from '../repositories.js'
import { RoomType } from '../rooms/room.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import type { TopicsService } from '../topics/topics.service.js'
import type { Assignment } from './assignment.js'
import { type Case, newCaseID, toCase } from './case.js'
import {
  type CaseEngine,
  type CaseRow,
  caseClosed,
  caseNotFound,
  isDefined,
  type Trx,
} from './case-engine.js'
import { caseOfOrganization } from './case-of-organization.js'
import { chatbotSender } from './chatbot-cases.js'
import { interactiveOf, notOffered, offers, type QuickReply, quickReplyContent } from './quick-replies.js'

export interface VisitorCasesDependencies {
  database: Database
  clock: Clock
  engine: CaseEngine
  assignment: Assignment
  happenings: Dispatcher
  repositories: Pick<Repositories, 'cases' | 'chatbots' | 'rooms' | 'messages'>
  topics: TopicsService
  chatbots: ChatbotsService
  organizations: OrganizationsService
}

type MessageRow = Selectable<MessagesTable>

/** A case a visitor opens, and on which channel (the app unless a channel module opens it). */
export interface NewCase {
  topicID?: number | undefined
  message: string
  channel?: ChannelName
  localID?: string
  within?: (trx: Trx, row: CaseRow, first: MessageRow) => Promise<void>
}

/** The visitor's side of support cases (docs/reference/cases.md): open, read, write in and close their own cases. */
export class VisitorCases {
  constructor(private readonly deps: VisitorCasesDependencies) {}

  /**
   * A new case with the visitor's first message: to the active chatbot, else to an agent's queue.
   * A channel other than the app (domain/channels) names itself, gives the first message's localID
   * (its own key of the message) and may keep what it needs of it in the change's transaction.
   */
  async create(client: ClientIdentity, input: NewCase): Promise<Case> {
    const { organizations, topics, chatbots, engine } = this.deps
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
      room_id: this.deps.database.ids.next(),
      first_message: content.body,
      handover_summary: '',
      created: now,
      updated: now,
      closed_time: null,
      closed_by: null,
      rating: null,
      rating_note: null,
      rated_at: null,
      handed_over_at: null,
      first_response_at: null,
      channel: input.channel ?? 'app',
    }
    // Nothing else knows the case yet: the engine is here for the transaction and the announcement.
    const { outcome } = await engine.change(row.id, async (trx) => {
      await this.insert(trx, client, row, maxOpen)
      const opened = await engine.systemMessage(trx, row, 'case/create', `Case ${row.id} opened`, now)
      const localID = input.localID ?? this.deps.database.ids.next()
      const first = await engine.store(trx, row, client.userID, localID, content, now)
      if (first) await input.within?.(trx, row, first)
      const messages = [opened, first].filter(isDefined)
      return this.deps.assignment.assignIfPossible(trx, { row, messages, changed: true }, now)
    })
    return toCase(outcome.row as CaseRow)
  }

  async list(client: ClientIdentity): Promise<Case[]> {
    return (await this.deps.repositories.cases.listCasesOfUser(this.deps.database.db, client.userID)).map(
      toCase,
    )
  }

  async get(client: ClientIdentity, caseID: string): Promise<Case> {
    return toCase(await this.ownCase(this.deps.database.db, client, caseID))
  }

  /**
   * A visitor's message in their case; while a chatbot has the case, it is queued for delivery. With
   * `interactive` it is the visitor's choice of a button or list row of the chatbot's latest
   * interactive message in the case (its title as text, the choice in `data.interactive`).
   */
  send(
    client: ClientIdentity,
    caseID: string,
    input: { localID: string; content: MessageContent; interactive?: QuickReply | undefined },
  ): Promise<Message> {
    const { interactive } = input
    const content = interactive ? quickReplyContent(input.content, interactive) : input.content
    const find = async (trx: Trx) => {
      const row = await this.ownCase(trx, client, caseID, { lock: true })
      if (row.status === 'closed') throw caseClosed()
      if (interactive && !(await this.chatbotOffered(trx, row, input.localID, interactive)))
        throw notOffered()
      return row
    }
    const message = { senderID: client.userID, localID: input.localID, content }
    return this.deps.engine.send(caseID, find, message, client.sessionID)
  }

  /** The visitor closes their case (closing a closed case changes nothing). */
  async close(client: ClientIdentity, caseID: string): Promise<Case> {
    const { outcome } = await this.deps.engine.change(caseID, async (trx, now) => {
      const row = await this.ownCase(trx, client, caseID, { lock: true })
      return this.deps.engine.close(trx, row, 'user', now)
    })
    return toCase(outcome.row as CaseRow)
  }

  /**
   * The visitor rates their closed case (1–5, a note); rating it again replaces the earlier rating.
   * Whoever follows the case (the visitor, its last agent) hears of it as a `case/update`.
   */
  async rate(client: ClientIdentity, caseID: string, input: { rating: number; note: string }): Promise<Case> {
    const { outcome } = await this.deps.engine.change(caseID, async (trx, now) => {
      const row = await this.ownCase(trx, client, caseID, { lock: true })
      if (row.status !== 'closed') throw new AppError('conflict', 'case is not closed')
      const rated = await this.deps.repositories.cases.rateCase(trx, row.id, { ...input, now })
      if (rated) await this.deps.happenings.emit(trx, 'case.rated', { row: rated })
      // Closed is final, so the case cannot have moved since it was read under the lock.
      return { row: rated ?? row, messages: [], changed: rated !== undefined }
    })
    return toCase(outcome.row as CaseRow)
  }

  /**
   * Inserts the case with its room, under the visitor's lock (so two at once cannot both pass the
   * limit of open cases), for the chatbot active now.
   */
  private async insert(trx: Trx, client: ClientIdentity, row: CaseRow, maxOpen: number): Promise<void> {
    const { cases, chatbots, rooms } = this.deps.repositories
    await cases.lockVisitor(trx, client.userID, this.deps.database.dialect)
    // Again here, locked: a chatbot deactivated meanwhile must not get the case.
    const current = await chatbots.findActiveChatbot(trx, client.organizationID, { lock: true })
    row.status = current ? 'bot' : 'queued'
    // Born waiting for an agent: handed over at once (docs/reference/agent-api.md, "Reports").
    row.handed_over_at = current ? null : row.created
    row.chatbot_id = current?.id ?? null
    if ((await cases.countOpenCases(trx, client.organizationID, client.userID)) >= maxOpen) {
      throw new AppError('conflict', 'too many open cases')
    }
    const room = {
      id: row.room_id,
      organization_id: row.organization_id,
      name: `Case ${row.id}`,
      image_url: '',
    }
    await rooms.insertRoom(trx, { ...room, type: RoomType.case, created: row.created, updated: row.created })
    await rooms.addParticipants(trx, row.room_id, [client.userID], row.created)
    await cases.insertCase(trx, row)
    await this.deps.happenings.emit(trx, 'case.created', { row })
  }

  /**
   * Whether the chatbot's latest interactive message in the case offers the visitor's choice. A
   * retry of a stored choice passes, even if the chatbot has offered something new since.
   */
  private async chatbotOffered(trx: Trx, row: CaseRow, localID: string, reply: QuickReply): Promise<boolean> {
    const { messages } = this.deps.repositories
    if (!row.chatbot_id) return false
    if (await messages.findBySenderLocalID(trx, row.user_id, localID, row.room_id)) return true
    // The latest few of the chatbot's messages that may be interactive; the newest that is counts.
    const candidates = await messages.latestDataMentioning(trx, {
      roomID: row.room_id,
      senderID: chatbotSender(row.chatbot_id),
      text: 'interactive',
      limit: 10,
    })
    const latest = candidates
      .map((candidate) => interactiveOf(JSON.parse(candidate.data) as Record<string, unknown>))
      .find((interactive) => interactive !== undefined)
    return latest !== undefined && offers(latest, reply)
  }

  /** The case, if it is the visitor's (another visitor's, or organization's, does not exist). */
  private async ownCase(db: Trx, client: ClientIdentity, caseID: string, options?: { lock: boolean }) {
    const { cases } = this.deps.repositories
    const row = await caseOfOrganization(db, cases, client.organizationID, caseID, options)
    if (row.user_id !== client.userID) throw caseNotFound()
    return row
  }
}
