import { type FilesAPI, kindOf, type SendFileOptions } from './files.js'
import { replyTitle } from './interactive.js'
import { messageActions } from './message-actions.js'
import type { Outbox, PendingMessage, SendPath } from './outbox.js'
import type { Call, ClientPath, PathsAnswering, Request } from './paths.js'
import type {
  Case,
  Message,
  MessagePage,
  QuickReply,
  Quote,
  Room,
  RoomListItem,
  Topic,
  User,
} from './types.js'

// The typed calls of the chat API (docs/reference/client-api.md) and the visitor API (docs/reference/cases.md).
// Sends go through the outbox; everything else is one authorized POST.

export interface ApiContext {
  call: Call
  outbox: Outbox
  /** The signed-in user's ID (to name a personal room before it exists). */
  userID(): string | undefined
  /** Follows a room: its messages are emitted, and it is resynced after every reconnect. */
  watch(roomID: string): void
  files: FilesAPI
}

export interface SendMessage {
  /** The room; or `recipientUserID` for the personal room with that user (opened on first use). */
  roomID?: string
  recipientUserID?: string
  /** 1001 text (default), 1002 image, 1003 video, 1004 file, 1005 location. */
  type?: number
  body?: string
  data?: Record<string, unknown>
  quote?: Partial<Quote>
  replyTo?: string
  /** A reply in the thread this message (of the same room) started. */
  threadID?: string
}

/** A file to upload and send (`messages.sendFile`): to a room, or to a user's personal room. */
export interface SendFile extends SendFileOptions {
  roomID?: string
  recipientUserID?: string
  file: Blob
}

export type CaseMessageType = 'text' | 'image' | 'video' | 'file'

/** Media in a case message: a file uploaded to Parley (its fileID), or a URL somebody else hosts. */
type Media<Extra = unknown> =
  | { fileID: string; caption?: string }
  | ({ url: string; caption?: string } & Extra)

export interface SendCaseMessage {
  messageType?: CaseMessageType
  text?: { body: string }
  image?: Media
  video?: Media
  file?: Media<{ fileName?: string }>
  /** The visitor's choice of a chatbot's button or list row (its title is the text, unless given). */
  reply?: QuickReply
}

const VISITOR = '/api/visitor/v1/client'
const CASE_TYPES: Record<CaseMessageType, number> = { text: 1001, image: 1002, video: 1003, file: 1004 }

/** A localID: random, so that two devices (or two tabs) never pick the same. */
export function newLocalID(): string {
  const crypto = globalThis.crypto
  // randomUUID needs a secure context in browsers (https, localhost); getRandomValues does not.
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID()
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')
}

/** A personal room's ID: `<smaller userID>-<larger userID>`, compared as numbers. */
export function personalRoomID(a: string, b: string): string | undefined {
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return undefined
  return BigInt(a) < BigInt(b) ? `${a}-${b}` : `${b}-${a}`
}

/** Drops the keys whose value is undefined (the server reads absent and undefined alike; JSON too). */
const defined = <T extends object>(object: T) =>
  Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T

/** A call whose answer carries nothing the caller needs. */
export const callOnly =
  (call: Call) =>
  <P extends ClientPath>(path: P, body: Request<P>): Promise<void> =>
    call(path, body).then(() => undefined)

export function usersAPI({ call }: ApiContext) {
  return {
    get: (userID: string) => call('/v1/client/user/get_by_id', { id: userID }).then((d): User => d.user),
    getByXcUserID: (xcUserID: string) =>
      call('/v1/client/user/get_by_xcuserid', { xcUserID }).then((d): User => d.user),
  }
}

const ROOM_LIST = '/v1/chat/message/room_list_and_unread'

function roomPage(
  call: Call,
  body: Request<typeof ROOM_LIST>,
): Promise<{ rooms: RoomListItem[]; hasMore: boolean }> {
  return call(ROOM_LIST, body)
}

export function roomsAPI({ call }: ApiContext) {
  const room = <P extends PathsAnswering<{ room: Room }>>(path: P, body: Request<P>) =>
    call(path, body).then((d): Room => d.room)
  return {
    get: (roomID: string) => room('/v1/client/room/get', { roomID }),
    /**
     * Your rooms with their latest message and unread count, newest message first: the first page
     * (500; room_list_and_unread, docs/reference/quotas.md). `page` reads on.
     */
    list: () => roomPage(call, {}).then((d) => d.rooms),
    /** One page of `list`'s rooms: the first without `after`, then after the last room of a page. */
    page: (options: { limit?: number; after?: RoomListItem } = {}) => {
      const { limit, after } = options
      const from = after && { before: after.lastMessage?.created ?? 0, beforeRoomID: after.room.roomID }
      return roomPage(call, defined({ limit, ...from }))
    },
    create: (input: { name: string; userIDs: string[]; imageURL?: string }) =>
      room('/v1/client/room/create', defined({ ...input, type: 2 })),
    addParticipants: (roomID: string, userIDs: string[]) =>
      room('/v1/client/room/participants/add', { roomID, userIDs }),
    removeParticipants: (roomID: string, userIDs: string[]) =>
      room('/v1/client/room/participants/remove', { roomID, userIDs }),
  }
}

export function messagesAPI(context: ApiContext) {
  const { call, outbox } = context
  const none = callOnly(call)
  const api = {
    /** Queues the message in the outbox (stored first); resolves once the server stored it. */
    send(input: SendMessage): Promise<Message> {
      const type = input.type ?? 1001
      const me = context.userID()
      const roomID =
        input.roomID ?? (me && input.recipientUserID ? personalRoomID(me, input.recipientUserID) : undefined)
      const shown = {
        roomID,
        recipientUserID: input.recipientUserID,
        type,
        body: input.body ?? '',
        data: input.data,
      }
      return outbox.add(entry(shown, '/v1/chat/message/send', defined({ ...input, type })))
    },
    /** Uploads the file, then sends it (as an image, a video or a file, as the bytes say) through the outbox. */
    async sendFile(input: SendFile): Promise<Message> {
      const { file, fileName, caption, onProgress, ...to } = input
      const uploaded = await context.files.upload(file, { fileName, onProgress })
      const type = CASE_TYPES[kindOf(uploaded.mediaType)]
      return api.send({ ...to, type, body: caption, data: { fileID: uploaded.fileID } })
    },
    /** Outbox entries not stored yet (of one room, or all), oldest first. */
    pending: (roomID?: string) => outbox.pending(roomID),
    listBefore: (
      roomID: string,
      options: { maxCreated?: number; limit?: number } = {},
    ): Promise<MessagePage> => call('/v1/chat/message/list_by_room/before', { roomID, ...options }),
    listAfter: (
      roomID: string,
      options: { minCreated?: number; limit?: number } = {},
    ): Promise<MessagePage> => call('/v1/chat/message/list_by_room/after', { roomID, ...options }),
    markRead: (messageIDs: string[]) => none('/v1/chat/message/feedback/read', { messageIDs }),
    markDelivered: (messageIDs: string[]) => none('/v1/chat/message/feedback/delivered', { messageIDs }),
    delete: (roomID: string, messageIDs: string[]) => none('/v1/chat/message/delete', { roomID, messageIDs }),
    ...messageActions(call),
  }
  return api
}

export function casesAPI(context: ApiContext) {
  const { call, outbox } = context
  /** caseID → roomID of the cases read here, so a case message's pending entry names its room. */
  const rooms = new Map<string, string>()
  const one = async <P extends PathsAnswering<{ case: Case }>>(path: P, body: Request<P>) => {
    const found: Case = (await call(path, body)).case
    rooms.set(found.caseID, found.roomID)
    return found
  }
  const api = {
    topics: () => call(`${VISITOR}/topic/get_list`, {}).then((d): Topic[] => d.topics),
    /** Opens a case with its first message, and watches its room. */
    async create(input: { message: string; topicID?: number }): Promise<Case> {
      const opened = await one(`${VISITOR}/case/create`, defined(input))
      context.watch(opened.roomID)
      return opened
    },
    /** Your cases, newest first. */
    async list(): Promise<Case[]> {
      const { cases } = await call(`${VISITOR}/case/get_list`, {})
      for (const c of cases) rooms.set(c.caseID, c.roomID)
      return cases
    },
    get: (caseID: string) => one(`${VISITOR}/case/get_by_id`, { id: caseID }),
    close: (caseID: string) => one(`${VISITOR}/case/close`, { id: caseID }),
    /** Rates a closed case: 1-5, and an optional note. */
    rate: (caseID: string, input: { rating: number; note?: string }) =>
      one(`${VISITOR}/case/rate`, defined({ id: caseID, ...input })),
    /** Writes in the case through the outbox; `reply` answers a chatbot's buttons or list. */
    send(caseID: string, input: SendCaseMessage): Promise<Message> {
      const messageType = input.messageType ?? 'text'
      const text = input.text ?? (input.reply ? { body: replyTitle(input.reply) } : undefined)
      const media = input.image ?? input.video ?? input.file
      const body = defined({
        ...input,
        reply: undefined,
        id: caseID,
        messageType,
        text,
        interactive: input.reply,
      })
      const shown = {
        roomID: rooms.get(caseID),
        caseID,
        type: CASE_TYPES[messageType],
        body: text?.body ?? media?.caption ?? '',
        data: media && { ...media },
        reply: input.reply,
      }
      return outbox.add(entry(shown, `${VISITOR}/case/send_message`, body))
    },
    /** Uploads the file, then sends it in the case (as an image, a video or a file, as the bytes say). */
    async sendFile(caseID: string, file: Blob, options: SendFileOptions = {}): Promise<Message> {
      const { caption, ...upload } = options
      const uploaded = await context.files.upload(file, upload)
      const messageType = kindOf(uploaded.mediaType)
      const media = caption === undefined ? { fileID: uploaded.fileID } : { fileID: uploaded.fileID, caption }
      return api.send(caseID, { messageType, [messageType]: media })
    },
  }
  return api
}

type Shown = Omit<PendingMessage, 'localID' | 'created' | 'request'>

/** A new outbox entry: what `pending()` shows, and the request (its localID is added when sent). */
function entry<P extends SendPath>(shown: Shown, path: P, body: Omit<Request<P>, 'localID'>): PendingMessage {
  return { localID: newLocalID(), created: Date.now(), ...defined(shown), request: { path, body } }
}
