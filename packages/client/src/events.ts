import type { Emitter } from './emitter.js'
import type { ParleyError } from './errors.js'
import type { UserFrames } from './frames.generated.js'
import type { PendingMessage } from './outbox.js'
import type { MessageSync } from './sync.js'
import type {
  Case,
  ConnectionState,
  Message,
  PresenceEvent,
  Room,
  RoomClearedEvent,
  RoomDeletedEvent,
  RoomState,
  ScheduledMessage,
  StarredEvent,
  TypingEvent,
  User,
} from './types.js'

// The client's typed events, and how each frame the server pushes becomes one.

export interface ParleyEvents extends Record<string, unknown[]> {
  /** A new message of a watched room: each messageID once, in `created` order per room. */
  message: [Message]
  /**
   * A change of a message already emitted: read, delivered, deleted, edited, reacted to, replied
   * to in its thread, pinned or unpinned.
   */
  messageUpdate: [Message]
  /** You starred or unstarred messages on another of your devices. */
  starred: [StarredEvent]
  typing: [TypingEvent]
  presence: [PresenceEvent]
  /** You changed your own state of a room on another device (or reading it ended its mark as unread). */
  roomState: [RoomState]
  /** You blocked (or unblocked) a user on another device. */
  block: [{ user: User; blocked: boolean }]
  /** A case changed status (case/update). */
  case: [Case]
  connection: [ConnectionState]
  /** The session was revoked or expired, and getTicket gave no new one: sign the user in again. */
  sessionEnded: []
  /** A new message of a room not watched (a room list may want to show it). */
  roomActivity: [Message]
  /** An outbox entry the server refused for good (also one resumed after a reload). */
  sendFailed: [{ entry: PendingMessage; error: ParleyError }]
  /** A watched room that can no longer be read (the user left it): it is not watched any more. */
  unwatched: [{ roomID: string; error: ParleyError }]
  /** One of your scheduled messages was created, changed, sent, cancelled or dropped (any device). */
  scheduled: [ScheduledMessage]
  /** A group room the user is in (or just left) changed: name, photo, members, admins. */
  roomUpdate: [Room]
  /** An admin deleted a group room the user was in. */
  roomDelete: [RoomDeletedEvent]
  /** The user cleared a room's history, on this device or another. */
  roomClear: [RoomClearedEvent]
}

const isMessage = (value: unknown): value is Message => {
  const m = value as Partial<Message> | null
  return typeof m?.messageID === 'string' && typeof m.roomID === 'string' && typeof m.created === 'number'
}

/** What becomes of each frame of the catalogue: a frame added there fails the type-check until it is here. */
type FrameHandlers = { [F in keyof UserFrames]: (data: UserFrames[F]) => void }

/** Each frame's handler: most pass the frame's data on as one event (a new message goes through the sync first). */
export function frameHandlers(events: Emitter<ParleyEvents>, sync: MessageSync): FrameHandlers {
  const forward =
    <E extends keyof ParleyEvents>(event: E) =>
    (...args: ParleyEvents[E]) =>
      events.emit(event, ...args)
  return {
    'chat/sendMessage': (data) => {
      if (isMessage(data)) sync.receive(data)
    },
    'chat/updateMessage': (data) => {
      if (isMessage(data) && sync.update(data)) events.emit('messageUpdate', data)
    },
    'chat/startTyping': ({ roomID, user }) => events.emit('typing', { roomID, user, typing: true }),
    'chat/stopTyping': ({ roomID, user }) => events.emit('typing', { roomID, user, typing: false }),
    'user/block': ({ user }) => events.emit('block', { user, blocked: true }),
    'user/unblock': ({ user }) => events.emit('block', { user, blocked: false }),
    // The socket's close that follows (4001) ends the session (realtime.ts).
    'session/revoked': () => {},
    'user/status': forward('presence'),
    'case/update': forward('case'),
    'chat/starred': forward('starred'),
    'scheduled/update': forward('scheduled'),
    'room/state': forward('roomState'),
    'room/update': forward('roomUpdate'),
    'room/delete': forward('roomDelete'),
    'room/clear': forward('roomClear'),
  }
}

/** A frame the server pushed, handled as the catalogue says its data is; one not in it is ignored. */
export function emitFrame(handlers: FrameHandlers, eventName: string, data: unknown): void {
  const handler = Object.hasOwn(handlers, eventName) ? handlers[eventName as keyof UserFrames] : undefined
  ;(handler as ((data: unknown) => void) | undefined)?.(data)
}
