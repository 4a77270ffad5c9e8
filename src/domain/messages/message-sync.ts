import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { Files } from '../files/files.service.js'
import type { Repositories } from '../repositories.js'
import { type Room, toRoom } from '../rooms/room.js'
import type { RoomAccess, RoomsService } from '../rooms/rooms.service.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import { type Message, messageContext, type Page, toMessage } from './message.js'
import type { Senders } from './senders.js'

/** Most messages one `new_and_updated` answers; `hasMore` asks for the rest. */
export const CHANGES_LIMIT = 500

/**
 * `new_and_updated` reads again what changed this long before its sync point: a message stored
 * by a transaction that began before the last sync and committed after it is not missed (clients
 * drop what they already have by messageID).
 */
export const SYNC_OVERLAP_MS = 5000

export interface RoomListEntry {
  room: Room
  lastMessage: Message | null
  unreadCount: number
}

/**
 * What a client reads to catch up: its room list, and what changed since (docs/reference/real-time.md). Each
 * session keeps a sync point: the room list sets it, `new_and_updated` answers from it and moves it.
 */
export class MessageSync {
  constructor(
    private readonly database: Database,
    private readonly repositories: Pick<Repositories, 'messages' | 'rooms' | 'sessions'>,
    private readonly clock: Clock,
    private readonly senders: Senders,
    private readonly rooms: RoomsService,
    private readonly files: Files,
  ) {}

  private readonly withLinks = (data: Record<string, unknown>) => this.files.withLinks(data)

  /**
   * What changed in the caller's rooms (messages sent or deleted) since their session last synced
   * (its room list, or the previous call), oldest change first; the sync point moves on.
   */
  async newAndUpdated(client: ClientIdentity): Promise<Page> {
    const db = this.database.db
    const now = this.clock.now()
    const since = await this.repositories.sessions.syncPointOf(db, client.sessionID)
    const rows = await this.repositories.messages.changedSince(
      db,
      client.userID,
      since - SYNC_OVERLAP_MS,
      CHANGES_LIMIT + 1,
    )
    const changes = rows.slice(0, CHANGES_LIMIT)
    const hasMore = rows.length > CHANGES_LIMIT
    const upTo = hasMore ? (changes.at(-1)?.updated ?? since) : now
    await this.repositories.sessions.setSyncPoint(db, client.sessionID, upTo)
    const byRoom = new Map<string, RoomAccess>()
    for (const roomID of new Set(changes.map((row) => row.room_id)))
      byRoom.set(roomID, await this.rooms.access(client, roomID))
    const senders = await this.senders.of(
      client.organizationID,
      changes.map((row) => row.sender_id),
    )
    const messages = changes.map((row) => {
      const { room, participants } = byRoom.get(row.room_id) as RoomAccess
      return toMessage(row, messageContext(room, participants, senders, this.withLinks))
    })
    return { messages, hasMore }
  }

  /**
   * Every room of the user with its newest message and the count of unread messages. The
   * session's sync point moves to now: `new_and_updated` answers what changes after this.
   */
  async roomListAndUnread(client: ClientIdentity): Promise<RoomListEntry[]> {
    const db = this.database.db
    await this.repositories.sessions.setSyncPoint(db, client.sessionID, this.clock.now())
    const [rooms, lastMessages, counts] = await Promise.all([
      this.repositories.rooms.roomsOfUser(db, client.userID),
      this.repositories.messages.lastMessagesOfUser(db, client.userID),
      this.repositories.messages.unreadCounts(db, client.userID),
    ])
    const participants = await this.repositories.rooms.participantsOfRooms(
      db,
      rooms.map((r) => r.id),
    )
    const senders = await this.senders.of(
      client.organizationID,
      lastMessages.map((m) => m.sender_id),
    )
    const unread = new Map(counts.map((c) => [c.room_id, Number(c.unread)]))
    const last = new Map(lastMessages.map((m) => [m.room_id, m]))
    return rooms.map((room) => {
      const roomParticipants = participants.filter((p) => p.room_id === room.id)
      const message = last.get(room.id)
      const context = messageContext(room, roomParticipants, senders, this.withLinks)
      return {
        room: toRoom(room, roomParticipants),
        lastMessage: message ? toMessage(message, context) : null,
        unreadCount: unread.get(room.id) ?? 0,
      }
    })
  }
}
