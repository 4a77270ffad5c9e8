import type { Emitter } from './emitter.js'
import type { ParleyError } from './errors.js'
import type { UserFrame } from './frames.generated.js'
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

/** Turns a frame of the catalogue into its event (a new message goes through the sync first). */
export function emitFrame(events: Emitter<ParleyEvents>, sync: MessageSync, frame: UserFrame): void {
  switch (frame.eventName) {
    case 'chat/sendMessage':
      if (isMessage(frame.data)) sync.receive(frame.data)
      return
    case 'chat/updateMessage':
      if (isMessage(frame.data) && sync.update(frame.data)) events.emit('messageUpdate', frame.data)
      return
    case 'chat/startTyping':
    case 'chat/stopTyping': {
      const { roomID, user } = frame.data
      events.emit('typing', { roomID, user, typing: frame.eventName === 'chat/startTyping' })
      return
    }
    case 'user/status':
      events.emit('presence', frame.data)
      return
    case 'case/update':
      events.emit('case', frame.data)
      return
    case 'chat/starred':
      events.emit('starred', frame.data)
      return
    case 'scheduled/update':
      events.emit('scheduled', frame.data)
      return
    case 'room/state':
      events.emit('roomState', frame.data)
      return
    case 'user/block':
    case 'user/unblock':
      events.emit('block', { user: frame.data.user, blocked: frame.eventName === 'user/block' })
      return
    case 'room/update':
      events.emit('roomUpdate', frame.data)
      return
    case 'room/delete':
      events.emit('roomDelete', frame.data)
      return
    case 'room/clear':
      events.emit('roomClear', frame.data)
      return
  }
}
