import type { Selectable } from 'kysely'
import type { MessagesTable, RoomParticipantsTable } from '../../storage/schema.js'
import type { RoomSummary } from '../rooms/room.js'
import type { User } from '../users/user.js'

export interface Quote {
  title: string
  content: string
  imageURL: string
}

export const NO_QUOTE: Quote = { title: '', content: '', imageURL: '' }

/** The message object of the chat API and of `chat/sendMessage` events (DESIGN §5). */
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
}

/** What a message's view needs besides its row. */
export interface MessageContext {
  room: RoomSummary
  participants: Selectable<RoomParticipantsTable>[]
  senders: Map<string, User>
}

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
    created: 0,
    updated: 0,
  }
}

export function toMessage(row: Selectable<MessagesTable>, context: MessageContext): Message {
  // Receipts are high-water marks: a message is read when every other participant has read up to it.
  const others = context.participants.filter((p) => p.user_id !== row.sender_id)
  const reached = (mark: 'read_up_to' | 'delivered_up_to') =>
    others.length > 0 && others.every((p) => p[mark] >= row.created)
  return {
    messageID: row.id,
    localID: row.local_id,
    roomID: row.room_id,
    room: context.room,
    type: row.type,
    body: row.body,
    data: JSON.parse(row.data) as Record<string, unknown>,
    quote: JSON.parse(row.quote) as Quote,
    replyTo: row.reply_to,
    user: context.senders.get(row.sender_id) ?? nonUserSender(row.sender_id),
    created: row.created,
    updated: row.updated,
    isDeleted: row.is_deleted === 1,
    isDelivered: reached('delivered_up_to'),
    isRead: reached('read_up_to'),
  }
}
