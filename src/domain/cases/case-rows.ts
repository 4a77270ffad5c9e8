import type { Selectable } from 'kysely'
import type { Database } from '../../storage/database.js'
import type { CasesTable, MessagesTable } from '../../storage/schema.js'
import { SYSTEM_SENDER_ID, SYSTEM_SENDER_NAME } from '../messages/message.js'
import { MessageType } from '../messages/message-types.js'
import type { Repositories } from '../repositories.js'
import { type CaseStatus, reopenableUntil, type TaggedCase, toCase } from './case.js'

type CaseRow = Selectable<CasesTable>

/** Who the case's visitor is, in a row of an agent's list. */
export interface CaseVisitor {
  userID: string
  xcUserID: string
  fullName: string
}

/** Who said a case's last message: its visitor, an agent, the chatbot, or Parley itself. */
export type SenderRole = 'visitor' | 'agent' | 'chatbot' | 'system'

/**
 * The newest message said in a case (Parley's own notes only when nothing else was said), as a row
 * of an agent's list shows it.
 */
export interface LastMessage {
  messageID: string
  type: number
  /** One line of its text (cut at 140 characters), or what it is (`Image`, a file's name). */
  preview: string
  senderID: string
  senderRole: SenderRole
  /** The visitor's, the agent's or the chatbot's name; `Parley` for Parley's own messages. */
  senderName: string
  created: number
}

/** A case as the agents' lists show it: with its tags, its visitor and its last message. */
export interface AgentCase extends TaggedCase {
  visitor: CaseVisitor
  lastMessage: LastMessage | null
}

/** What an agent's inbox list is narrowed by. */
export interface InboxFilter {
  status?: CaseStatus
  topicID?: number
  mine?: boolean
  /** Only cases having every one of these tags (as given: normalised by the list). */
  tags?: readonly string[]
  before?: { created: number; caseID: string }
  limit: number
}

export const PREVIEW_CHARACTERS = 140

/** One line saying what a message is: its text, else what it holds. */
export function previewOf(row: Pick<Selectable<MessagesTable>, 'type' | 'body' | 'data' | 'is_deleted'>) {
  if (row.is_deleted === 1) return 'Message deleted'
  const text = row.body.replace(/\s+/g, ' ').trim()
  const cut = [...text]
  if (cut.length > PREVIEW_CHARACTERS) return `${cut.slice(0, PREVIEW_CHARACTERS - 1).join('')}…`
  if (text) return text
  const data = JSON.parse(row.data) as Record<string, unknown>
  switch (row.type) {
    case MessageType.image:
      return 'Image'
    case MessageType.video:
      return 'Video'
    case MessageType.file:
      return typeof data.fileName === 'string' && data.fileName ? data.fileName : 'File'
    case MessageType.location:
      return 'Location'
    default:
      return ''
  }
}

/**
 * The rows of agents' lists (docs/reference/agent-api.md): cases with their visitors and last messages, for a page
 * of cases in a constant number of queries (the page's last messages, its visitors, and the names
 * of the agents and chatbots who said them), however long the page.
 */
export class CaseRows {
  constructor(
    private readonly deps: {
      database: Database
      repositories: Pick<Repositories, 'messages' | 'users' | 'agents' | 'chatbots' | 'tags'>
      /** CASE_REOPEN_WINDOW_HOURS (0: off), for each closed case's `reopenableUntil`. */
      reopenWindowHours: number
    },
  ) {}

  /** Cases as agents see them: with their tags (in one query for them all). */
  async tagged(rows: readonly CaseRow[]): Promise<TaggedCase[]> {
    const tags = await this.tagsOf(rows)
    return rows.map((row) => this.agentView(row, tags))
  }

  /** The case with what agents see of it beyond the visitor: tags, and until when it can be reopened. */
  private agentView(row: CaseRow, tags: Map<string, string[]>): TaggedCase {
    const until = reopenableUntil(row, this.deps.reopenWindowHours)
    return { ...toCase(row), tags: tags.get(row.id) ?? [], reopenableUntil: until }
  }

  /** The tags of these cases, by caseID. */
  async tagsOf(rows: readonly Pick<CaseRow, 'id'>[]): Promise<Map<string, string[]>> {
    const found = await this.deps.repositories.tags.tagsOfCases(
      this.deps.database.db,
      rows.map((row) => row.id),
    )
    const byCase = new Map<string, string[]>()
    for (const { case_id, tag } of found) byCase.set(case_id, [...(byCase.get(case_id) ?? []), tag])
    return byCase
  }

  async describe(organizationID: string, rows: readonly CaseRow[]): Promise<AgentCase[]> {
    if (rows.length === 0) return []
    const { db } = this.deps.database
    const { users } = this.deps.repositories
    const [lastMessages, visitors, tags] = await Promise.all([
      this.lastSaid([...new Set(rows.map((row) => row.room_id))]),
      users.findUsers(db, organizationID, [...new Set(rows.map((row) => row.user_id))]),
      this.tagsOf(rows),
    ])
    const names = await this.senderNames(organizationID, lastMessages)
    const byRoom = new Map(lastMessages.map((message) => [message.room_id, message]))
    const byUser = new Map(visitors.map((user) => [user.id, user]))
    return rows.map((row) => {
      const user = byUser.get(row.user_id)
      const visitor = {
        userID: row.user_id,
        xcUserID: user?.xc_user_id ?? '',
        fullName: user?.full_name ?? '',
      }
      const message = byRoom.get(row.room_id)
      return {
        ...this.agentView(row, tags),
        visitor,
        lastMessage: message ? lastMessage(message, row, visitor, names) : null,
      }
    })
  }

  /**
   * The message each room's row previews: its newest, unless that is one of Parley's notes (a
   * handover, a take, a closing: alike in every row), then the newest someone said before it.
   */
  private async lastSaid(roomIDs: string[]): Promise<Selectable<MessagesTable>[]> {
    const { db } = this.deps.database
    const { messages } = this.deps.repositories
    const newest = await messages.lastMessagesOfRooms(db, roomIDs)
    const noted = newest.filter((message) => message.sender_id === SYSTEM_SENDER_ID)
    if (noted.length === 0) return newest
    const said = await messages.lastSaidOfRooms(
      db,
      noted.map((message) => message.room_id),
    )
    const saidIn = new Set(said.map((message) => message.room_id))
    return [...newest.filter((message) => !saidIn.has(message.room_id)), ...said]
  }

  /** The names of the agents and chatbots who sent these messages, by sender ID. */
  private async senderNames(organizationID: string, rows: Selectable<MessagesTable>[]) {
    const ids = (kind: string) => [
      ...new Set(
        rows.filter((m) => m.sender_id.startsWith(`${kind}:`)).map((m) => m.sender_id.slice(kind.length + 1)),
      ),
    ]
    const { db } = this.deps.database
    const [agentIDs, chatbotIDs] = [ids('agent'), ids('chatbot')]
    const [agents, chatbots] = await Promise.all([
      agentIDs.length > 0 ? this.deps.repositories.agents.agentNames(db, organizationID, agentIDs) : [],
      chatbotIDs.length > 0
        ? this.deps.repositories.chatbots.chatbotNames(db, organizationID, chatbotIDs)
        : [],
    ])
    return new Map([
      ...agents.map(({ id, name }): [string, string] => [`agent:${id}`, name]),
      ...chatbots.map(({ id, name }): [string, string] => [`chatbot:${id}`, name]),
    ])
  }
}

function lastMessage(
  message: Selectable<MessagesTable>,
  row: CaseRow,
  visitor: CaseVisitor,
  names: Map<string, string>,
): LastMessage {
  const senderID = message.sender_id
  const [role, name]: [SenderRole, string] =
    senderID === 'system'
      ? ['system', SYSTEM_SENDER_NAME]
      : senderID.startsWith('agent:')
        ? ['agent', names.get(senderID) ?? '']
        : senderID.startsWith('chatbot:')
          ? ['chatbot', names.get(senderID) ?? '']
          : ['visitor', senderID === row.user_id ? visitor.fullName : '']
  return {
    messageID: message.id,
    type: message.type,
    preview: previewOf(message),
    senderID,
    senderRole: role,
    senderName: name,
    created: message.created,
  }
}
