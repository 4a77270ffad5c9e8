import type { Kysely, Selectable } from 'kysely'
import { AppError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { CasesTable, MessagesTable, Schema } from '../../storage/schema.js'
import type { Events } from '../events/events.service.js'
import type { Files } from '../files/files.service.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Message } from '../messages/message.js'
import { checkContent, type MessageContent, MessageType } from '../messages/message-types.js'
import type { MessagesService } from '../messages/messages.service.js'
import type { Repositories } from '../repositories.js'
import type { RoomsService } from '../rooms/rooms.service.js'
import { type CaseStatus, type ClosedBy, canMove, caseIs, toCase } from './case.js'
import type { CaseRows } from './case-rows.js'

export type Trx = Kysely<Schema>
export type CaseRow = Selectable<CasesTable>
type MessageRow = Selectable<MessagesTable>

/** What one change of a case did: announced after its transaction commits. */
export interface Outcome {
  row?: CaseRow | undefined
  /** The case before the change's first step: whoever followed it then hears of the change too. */
  before?: CaseRow | undefined
  messages: MessageRow[]
  changed: boolean
  /** Only agents hear of the change (a change of what visitors never see, such as tags). */
  agentsOnly?: boolean
}

/** A change that changed nothing (a retry, or a step the case is already past). */
export const unchanged = (row: CaseRow, messages: MessageRow[] = []): Outcome => ({
  row,
  messages,
  changed: false,
})

export interface EngineDependencies {
  database: Database
  clock: Clock
  /** Where each change is reported: what it records in the outbox and who hears of it follow from there. */
  happenings: Dispatcher
  repositories: Pick<Repositories, 'cases' | 'messages' | 'deliveries' | 'agents'>
  rooms: RoomsService
  messages: MessagesService
  /** What agents' lists show of a case: its `case/update` to agents carries it too. */
  rows: CaseRows
  files: Files
  /** Whether the organization listens to messages (when not, a case's message needs no transaction). */
  events: Pick<Events, 'mayRecord'>
}

const SYSTEM = 'system'
export const caseNotFound = () => new AppError('notFound', 'case not found')
export const caseClosed = () => caseIs('closed')

/**
 * Runs changes of support cases (docs/reference/cases.md, docs/reference/chatbot-webhook.md): every change to one case is one transaction, run
 * one at a time per case (in order of arrival here; a row lock orders them across instances);
 * status changes follow the state table and leave a system message; each is reported to the
 * dispatcher, and after the commit the new messages and the case are told to everyone following it.
 */
export class CaseEngine {
  private readonly queues = new Map<string, Promise<unknown>>()

  constructor(private readonly deps: EngineDependencies) {}

  /** Runs one change of a case (after the case's earlier ones, in one transaction) and announces it. */
  async change(
    caseID: string,
    work: (trx: Trx, now: number) => Promise<Outcome>,
    exceptSessionID?: string,
  ): Promise<{ outcome: Outcome; messages: Message[] }> {
    const outcome = await this.serialised(caseID, () =>
      this.deps.database.transaction((trx) => work(trx, this.deps.clock.now())),
    )
    return { outcome, messages: await this.announce(outcome, exceptSessionID) }
  }

  /**
   * A message in a case by `senderID`, if `allowed` (given the locked case) does not throw: the
   * message stored, or for a retry (the same sender and localID) the one stored before, announced
   * again (the first announcement may have died with its instance; clients drop repeats by messageID).
   */
  async send(
    caseID: string,
    find: (trx: Trx) => Promise<CaseRow>,
    message: { senderID: string; localID: string; content: MessageContent },
    exceptSessionID?: string,
  ): Promise<Message> {
    const content = checkContent(message.content)
    const { messages } = await this.change(
      caseID,
      async (trx, now) => {
        const row = await find(trx)
        const stored = await this.store(trx, row, message.senderID, message.localID, content, now)
        return unchanged(row, stored ? [stored] : [])
      },
      exceptSessionID,
    )
    return messages[0] as Message
  }

  /** Moves the case (only along the state table) and records why in a system message. */
  async transition(
    trx: Trx,
    row: CaseRow,
    to: CaseStatus,
    now: number,
    step: { changes: Partial<CaseRow>; action: string; text: string; by?: string },
  ): Promise<Outcome> {
    const from = row.status as CaseStatus
    // A closed case is only ever reopened, never moved on by a step meant for open cases.
    if (!canMove(from, to) || (from === 'closed' && step.action !== 'case/reopen')) throw caseIs(from)
    const { cases, deliveries } = this.deps.repositories
    // The first time the case goes to agents (a queue or an agent) is its handover, for reports.
    const handedOver = row.handed_over_at === null && to !== 'closed' ? { handed_over_at: now } : {}
    const changes = { ...step.changes, ...handedOver, status: to, updated: now }
    const moved = await cases.moveCase(trx, row.id, from, changes)
    if (!moved) throw new AppError('conflict', 'case changed meanwhile; try again')
    // Whatever the chatbot has not received yet, it will not need.
    if (from === 'bot') await deliveries.abandonPending(trx, row.id, now)
    const message = await this.systemMessage(trx, moved, step.action, step.text, now)
    await this.deps.happenings.emit(trx, 'case.moved', {
      row: moved,
      from,
      by: step.by ?? (to === 'closed' ? String(moved.closed_by) : 'system'),
    })
    return { row: moved, before: row, messages: [message].filter(isDefined), changed: true }
  }

  /** Closes the case, by whom; closing a closed case changes nothing. */
  close(trx: Trx, row: CaseRow, closedBy: ClosedBy, now: number): Promise<Outcome> {
    if (row.status === 'closed') return Promise.resolve(unchanged(row))
    return this.transition(trx, row, 'closed', now, {
      changes: { closed_time: now, closed_by: closedBy },
      action: 'case/close',
      text: `The case was closed by the ${closedBy === 'user' ? 'visitor' : closedBy}`,
    })
  }

  systemMessage(trx: Trx, row: CaseRow, action: string, text: string, now: number) {
    const content = {
      type: MessageType.system,
      body: text,
      data: { action, caseID: row.id, status: row.status },
    }
    const { ids } = this.deps.database
    return this.deps.repositories.messages.storeMessage(trx, {
      id: ids.next(),
      roomID: row.room_id,
      senderID: SYSTEM,
      localID: ids.next(),
      ...content,
      now,
      searchable: true,
    })
  }

  /**
   * Stores a message in the case's room; a retry (the same sender and localID) gives the message
   * stored before. A new one is reported (a visitor's message to a chatbot's case is delivered to it).
   */
  async store(
    trx: Trx,
    row: CaseRow,
    senderID: string,
    localID: string,
    content: MessageContent,
    now: number,
  ) {
    const { messages } = this.deps.repositories
    const { ids } = this.deps.database
    const { files } = this.deps
    const withFile = await files.contentWithFile(
      trx,
      { organizationID: row.organization_id, senderID },
      content,
    )
    const message = await messages.storeMessage(trx, {
      id: ids.next(),
      roomID: row.room_id,
      senderID,
      localID,
      ...withFile,
      now,
      searchable: true,
    })
    if (!message) return messages.findBySenderLocalID(trx, senderID, localID, row.room_id)
    await files.attach(trx, { id: message.id, roomID: row.room_id, content: withFile })
    // An agent's first message in the case is its first response, for reports.
    if (row.first_response_at === null && senderID.startsWith('agent:')) {
      await this.deps.repositories.cases.markFirstResponse(trx, row.id, now)
      row.first_response_at = now
    }
    // The visitor is whom a reply is for (agents and bots are not the customer's users).
    await this.deps.happenings.emit(trx, 'message.stored', {
      organizationID: row.organization_id,
      message,
      recipientIDs: senderID === row.user_id ? [] : [row.user_id],
      now,
      case: row,
    })
    return message
  }

  /** Runs `work` after the case's earlier changes (in order of arrival in this process). */
  private serialised<T>(caseID: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(caseID) ?? Promise.resolve()
    const next = previous.catch(() => {}).then(work)
    this.queues.set(caseID, next)
    void next
      .finally(() => {
        if (this.queues.get(caseID) === next) this.queues.delete(caseID)
      })
      .catch(() => {})
    return next
  }

  /**
   * The agents who hear of a case on /connect (as `agent:<id>`): its agent while assigned; while
   * it waits, every agent of its topic and every admin (a topic nobody works has a queue too), so
   * queues update live.
   */
  async agentsFollowing(row: CaseRow): Promise<string[]> {
    if (row.status === 'queued') {
      const { agents } = this.deps.repositories
      const ids = await agents.agentsHearingOfQueue(this.deps.database.db, row.organization_id, row.topic_id)
      return ids.map((id) => `agent:${id}`)
    }
    return row.agent_account_id ? [`agent:${row.agent_account_id}`] : []
  }

  /** The agents following the case whose messages the room holds (none for other rooms). */
  async agentsFollowingRoom(roomID: string): Promise<string[]> {
    const row = await this.deps.repositories.cases.findCaseByRoom(this.deps.database.db, roomID)
    return row ? this.agentsFollowing(row) : []
  }

  /**
   * After the commit: the new messages to the room, and the case to everyone in it (to its agents
   * with the visitor and last message, as the agent API's case list shows it).
   */
  private async announce(outcome: Outcome, exceptSessionID?: string): Promise<Message[]> {
    const { row } = outcome
    if (!row) return []
    const [access, following, followed] = await Promise.all([
      // With the visitor's row: most messages in a case are theirs (no query for their profile).
      this.deps.rooms.snapshot(row.room_id, [row.user_id]),
      this.agentsFollowing(row),
      outcome.before ? this.agentsFollowing(outcome.before) : [],
      // Whether the organization listens to messages, looked at once a second: when it does not,
      // the case's next message is stored without asking (Events.messageNew).
      this.deps.events.mayRecord(row.organization_id, 'message.new').catch(() => true),
    ])
    // Those who followed the case before the change hear of it too (a queue loses the case it gave).
    const agents = [...new Set([...following, ...followed])]
    const messages = await this.deps.messages.announceNew(row.organization_id, access, outcome.messages, {
      exceptSessionID,
      alsoUserIDs: agents,
    })
    if (outcome.changed) {
      // Agents get the case as their lists show it: with its visitor and its last message (also
      // those only watching it, so even a case nobody follows is described).
      const [agentCase] = await this.deps.rows.describe(row.organization_id, [row])
      await this.deps.happenings.tell('case.updated', {
        case: toCase(row),
        ...(outcome.agentsOnly ? {} : { visitorUserID: row.user_id }),
        ...(agentCase ? { agents: { userIDs: agents, agentCase } } : {}),
      })
    }
    return messages
  }
}

export const isDefined = <T>(value: T | undefined): value is T => value !== undefined
