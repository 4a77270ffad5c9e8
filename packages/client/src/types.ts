// The objects of Parley's client and visitor APIs, as the server sends them (docs/reference/client-api.md
// API, Support cases). Fields are named as on the wire, so a payload can be passed on unchanged.

import type { UserFrames } from './frames.generated.js'

/** A user. Senders that are not end users have `userID` `agent:<id>`, `chatbot:<id>` or `system`. */
export interface User {
  userID: string
  xcUserID: string
  fullname: string
  email: string
  phone: string
  username: string
  imageURL: { thumbnail: string; fullsize: string }
  /** `agent`, `chatbot` or `system` for those senders; what the customer set for end users. */
  userRole: { code: string }
  /** What the user says of themselves; '' when not set. */
  bio: string
  created: number
  updated: number
}

/** What a message carries of its room. */
export interface RoomSummary {
  roomID: string
  name: string
  /** 1 personal, 2 group, 3 a support case's room. */
  type: number
  imageURL: string
}

export interface Room extends RoomSummary {
  userIDs: string[]
  /** A group room's admins: only they change the room, its members and admins. */
  adminUserIDs: string[]
  /** The ID the customer's backend gave the room; '' when none. */
  xcRoomID: string
  created: number
  updated: number
}

/** One entry of `rooms.list()`. */
export interface RoomListItem {
  room: RoomSummary
  lastMessage: Message | null
  unreadCount: number
  /** Your own state of the room (muted, pinned, marked as unread). */
  state: RoomState
}

export interface Quote {
  title: string
  content: string
  imageURL: string
}

export interface Message {
  messageID: string
  localID: string
  roomID: string
  room: RoomSummary
  /** 1001 text, 1002 image, 1003 video, 1004 file, 1005 location, 9001 system. */
  type: number
  body: string
  /**
   * Per type (`url`, `fileName`, ...; an uploaded file's FileData, read it with `fileOf`); a
   * chatbot's `customData` string is kept here.
   */
  data: Record<string, unknown>
  quote: Quote
  replyTo: string | null
  user: User
  /** Epoch ms on the server's clock; strictly increasing within a room. */
  created: number
  updated: number
  isDeleted: boolean
  isDelivered: boolean
  isRead: boolean
  /** Epoch ms of the last edit; 0: never edited (show "edited" otherwise). */
  edited: number
  /** Each emoji on the message, first used first: how many reacted with it, and who. */
  reactions: Reaction[]
  /** A reply in a thread: the thread's first message; null otherwise. */
  threadID: string | null
  /** A thread's first message: how many replies it has. */
  replyCount: number
  /** Whether it is among its room's pinned messages. */
  isPinned: boolean
  /** True in a group room when you blocked the sender (absent otherwise): hide or fold it as you like. */
  senderBlocked?: boolean
}

export interface Reaction {
  emoji: string
  count: number
  userIDs: string[]
}

/** You starred or unstarred messages on another of your devices. */
export interface StarredEvent {
  roomID: string
  messageIDs: string[]
  isStarred: boolean
}

/** A file uploaded to Parley (`files.upload`): a message then carries it by its `fileID`. */
export interface FileObject {
  fileID: string
  /** A signed link on Parley's origin, good for an hour or two (messages give fresh ones). */
  url: string
  /** The image's thumbnail (a signed link too); '' for other files. */
  thumbnailURL: string
  /** What the bytes are (sniffed by the server, whatever the file's name says). */
  mediaType: string
  size: number
  fileName: string
  /** An image's size in pixels; null for other files. */
  width: number | null
  height: number | null
}

/** The `data` of a message that carries an uploaded file (links fresh on every read). */
export interface FileData extends FileObject {
  hasThumbnail: boolean
}

/** A page of a room's history, oldest first. */
export interface MessagePage {
  messages: Message[]
  hasMore: boolean
}

export type CaseStatus = 'bot' | 'queued' | 'assigned' | 'closed'

export interface Case {
  caseID: string
  organizationID: string
  userID: string
  topicID: number
  status: CaseStatus
  chatbotID: string
  agentAccountID: string
  /** The room holding the case's messages (read them with `messages.*`, follow it with `watch`). */
  roomID: string
  firstMessage: string
  /** The channel the case came in on: the app or widget, or e-mail. */
  channel: 'app' | 'email'
  created: number
  updated: number
  closedTime: number | null
  closedBy: 'user' | 'agent' | 'chatbot' | 'system' | ''
  isClosed: boolean
  /** The visitor's rating of the closed case (1 worst to 5 best, a note, when); null until rated. */
  rating: { rating: number; note: string; rated: number } | null
}

export interface Topic {
  topicID: number
  name: string
}

/** The visitor's choice of a chatbot's button or list row, sent back as their reply. */
export type QuickReply =
  | { type: 'button_reply'; button_reply: { id: string; title: string } }
  | { type: 'list_reply'; list_reply: { id: string; title: string; description?: string } }

export interface InteractiveButton {
  type: 'reply'
  reply: { id: string; title: string }
}

export interface InteractiveRow {
  id: string
  title: string
  description?: string
}

interface InteractiveCommon {
  /** Only text headers are kept (media headers are not shown by the SDK's consumers). */
  header?: { type: 'text'; text: string }
  body: { text: string }
  footer?: { text: string }
}

/** WhatsApp-style interactive content a chatbot put in a message's `data.customData`. */
export type Interactive =
  | (InteractiveCommon & { type: 'button'; buttonAction: { buttons: InteractiveButton[] } })
  | (InteractiveCommon & {
      type: 'list'
      listAction: { button: string; sections: { title?: string; rows: InteractiveRow[] }[] }
    })

/** Someone started or stopped typing in a room. */
export interface TypingEvent {
  roomID: string
  user: User
  typing: boolean
}

/** A user's first socket opened or last one closed. */
export interface PresenceEvent {
  user: User
  isOnline: boolean
  lastActive: number
}

/** A user in your contacts or your blocked list, with when they were added. */
export interface Contact {
  user: User
  created: number
}

/** Your own state of a room: it follows you to every device (`roomState` events). */
export interface RoomState {
  roomID: string
  muted: boolean
  /** When the mute ends (epoch ms); 0: until unmuted, or not muted. */
  mutedUntil: number
  pinned: boolean
  /** When it was pinned (epoch ms); 0 when not pinned. */
  pinnedAt: number
  /** Marked as unread; reading a message of the room clears it. */
  markedUnread: boolean
}

/** An admin deleted a group room the user was in. */
export interface RoomDeletedEvent {
  roomID: string
}

/** The user cleared a room's history (on any device) up to `clearedUpTo` (a message's `created`). */
export interface RoomClearedEvent {
  roomID: string
  clearedUpTo: number
}

/** A profile photo; its links last as long as the photo. */
export interface Photo {
  id: string
  url: string
  thumbnailURL: string
  isMain: boolean
  created: number
}

export type ConnectionState = 'connecting' | 'open' | 'offline'

/** A scheduled message (`scheduled.list`, and the `scheduled` event as it changes). */
export interface ScheduledMessage {
  id: string
  roomID: string
  scheduledTime: number
  status: 'pending' | 'sent' | 'cancelled' | 'dropped'
  /** The message it became, once sent. */
  messageID: string | null
  created: number
  updated: number
  /** How it will look sent (messageID empty, created its scheduledTime). */
  message: Message
}

/** Who has read a message, and who has it delivered but not read yet. */
export interface ReadDetails {
  message: Message
  readBy: User[]
  deliveredTo: User[]
  readCount: number
  deliveredCount: number
}

/** A page of a room's shared content, each kind newest first. */
export interface SharedContent {
  media: Message[]
  files: Message[]
  links: Message[]
  hasMore: boolean
}

// These objects are checked by the compiler against the server's frame catalogue (frames.generated.ts,
// written by `npm run api-types` from src/contract/frames.ts): a change the server makes to one fails the
// SDK's type-check until the type here follows.
type Same<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false
type Checked<T extends true> = T
export type CheckedAgainstFrames = [
  Checked<Same<Message, UserFrames['chat/sendMessage']>>,
  Checked<Same<Message, UserFrames['chat/updateMessage']>>,
  Checked<Same<Case, UserFrames['case/update']>>,
  Checked<Same<User, UserFrames['chat/startTyping']['user']>>,
  Checked<Same<Omit<TypingEvent, 'typing'>, UserFrames['chat/startTyping']>>,
  Checked<Same<PresenceEvent, UserFrames['user/status']>>,
  Checked<Same<StarredEvent, UserFrames['chat/starred']>>,
  Checked<Same<ScheduledMessage, UserFrames['scheduled/update']>>,
  Checked<Same<RoomState, UserFrames['room/state']>>,
  Checked<Same<Room, UserFrames['room/update']>>,
  Checked<Same<RoomDeletedEvent, UserFrames['room/delete']>>,
  Checked<Same<RoomClearedEvent, UserFrames['room/clear']>>,
]
