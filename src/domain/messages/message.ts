import type { Selectable } from 'kysely'
import type { MessagesTable, RoomParticipantsTable, RoomsTable } from '../../storage/schema.js'
import { type RoomSummary, RoomType, toRoomSummary } from '../rooms/room.js'
import type { User } from '../users/user.js'

export interface Quote {
  title: string
  content: string
  imageURL: string
}

export const NO_QUOTE: Quote = { title: '', content: '', imageURL: '' }

/** What a client asks to send (chat API, /connect, server API). */
export interface SendInput {
  roomID?: string | undefined
  recipientUserID?: string | undefined
  localID: string
  type: number
  body?: string | undefined
  data: Record<string, unknown>
  quote?: Quote | undefined
  replyTo?: string | undefined
  /** A reply in the thread this message (of the same room) started. */
  threadID?: string | undefined
}

/** The message object of the chat API and of `chat/sendMessage` events (docs/reference/client-api.md). */
export interface Message {
  messageID: string
  localID: string
  roomID: string
  room: RoomSummary
  type: number
  body: string
  data: Record<string, unknown>
  quote: Quote
  replyTo: string | null
  user: User
  created: number
  updated: number
  isDeleted: boolean
  isDelivered: boolean
  isRead: boolean
  /** Epoch ms of the last edit; 0: never edited. */
  edited: number
  reactions: Reaction[]
  /** A reply in a thread: the thread's first message; null otherwise. */
  threadID: string | null
  /** A thread's first message: its replies. */
  replyCount: number
  isPinned: boolean
  /** Only in what one who blocked the sender receives, in a group room (docs/reference/client-api.md, "Blocking"). */
  senderBlocked?: boolean
}

/** One emoji on a message: how many reacted with it, and who (oldest first). */
export interface Reaction {
  emoji: string
  count: number
  userIDs: string[]
}

/** A page of a room's messages, oldest first, and whether there are more beyond it. */
export interface Page {
  messages: Message[]
  hasMore: boolean
}

/** What a message's view needs besides its row. */
export interface MessageContext {
  room: RoomSummary
  participants: Selectable<RoomParticipantsTable>[]
  senders: Map<string, User>
  /** In a case's room, how far the case's agents have read (they are not participants). */
  agentsReadUpTo?: number | undefined
  /** A message's data with links to the uploaded file it carries, if any (Files.withLinks). */
  withLinks: (data: Record<string, unknown>) => Record<string, unknown>
}

/** The context of messages of a room: its participants, and in a case's room its agents' read mark. */
export const messageContext = (
  room: Selectable<RoomsTable>,
  participants: Selectable<RoomParticipantsTable>[],
  senders: Map<string, User>,
  withLinks: MessageContext['withLinks'],
): MessageContext => ({
  room: toRoomSummary(room),
  participants,
  senders,
  withLinks,
  ...(room.type === RoomType.case ? { agentsReadUpTo: Number(room.agents_read_up_to) } : {}),
})

/** The sender ID of Parley's own messages and of the organization's notices (server API). */
export const SYSTEM_SENDER_ID = 'system'

/** The name Parley's own messages (type 9001, sender `system`) go by. */
export const SYSTEM_SENDER_NAME = 'Parley'

/**
 * A user-shaped sender for senders that are not end users (`agent:<id>`, `chatbot:<id>`,
 * `system`), so clients can always read `message.user`: `fullname` is the agent's or chatbot's
 * display name (empty for one that no longer exists). They have no pictures: `imageURL` is empty.
 */
export function nonUserSender(senderID: string, fullname = ''): User {
  const role = senderID.split(':')[0] as string
  return {
    userID: senderID,
    xcUserID: '',
    fullname: senderID === 'system' ? SYSTEM_SENDER_NAME : fullname,
    email: '',
    phone: '',
    username: '',
    imageURL: { thumbnail: '', fullsize: '' },
    userRole: { code: role },
    bio: '',
    created: 0,
    updated: 0,
  }
}

export function toMessage(row: Selectable<MessagesTable>, context: MessageContext): Message {
  // Receipts are high-water marks: a message is read when every other participant has read up to
  // it. A case's room has two sides: the visitor's messages are read (and delivered) once the
  // case's agent has read up to them; what agents, the chatbot and Parley say, once the visitor has.
  const others = context.participants
    .filter((p) => p.user_id !== row.sender_id)
    .map((p) => ({ read: p.read_up_to, delivered: p.delivered_up_to }))
  const byParticipant = context.participants.some((p) => p.user_id === row.sender_id)
  if (context.agentsReadUpTo !== undefined && byParticipant)
    others.push({ read: context.agentsReadUpTo, delivered: context.agentsReadUpTo })
  const reached = (mark: 'read' | 'delivered') =>
    others.length > 0 && others.every((p) => p[mark] >= row.created)
  return {
    messageID: row.id,
    localID: row.local_id,
    roomID: row.room_id,
    room: context.room,
    type: row.type,
    body: row.body,
    data: context.withLinks(JSON.parse(row.data) as Record<string, unknown>),
    quote: JSON.parse(row.quote) as Quote,
    replyTo: row.reply_to,
    user: context.senders.get(row.sender_id) ?? nonUserSender(row.sender_id),
    created: row.created,
    updated: row.updated,
    isDeleted: row.is_deleted === 1,
    isDelivered: reached('delivered'),
    isRead: reached('read'),
    edited: row.edited,
    reactions: row.reactions === '[]' ? [] : (JSON.parse(row.reactions) as Reaction[]),
    threadID: row.thread_id,
    replyCount: row.reply_count,
    isPinned: row.is_pinned === 1,
  }
}
