import type { Clock } from '../../lib/clock.js'
import { eachInTurns, nextTurn } from '../../lib/in-turns.js'
import { Semaphore } from '../../lib/semaphore.js'
import type { Database } from '../../storage/database.js'
import type { Files } from '../files/files.service.js'
import type { People } from '../people/people.js'
import type { RoomState } from '../people/room-state.js'
import type { Repositories } from '../repositories.js'
import { clearedUpTo, type Room, toRoom } from '../rooms/room.js'
import type { RoomListCursor } from '../rooms/rooms.repository.js'
import type { RoomAccess, RoomsService } from '../rooms/rooms.service.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import { type Message, type MessageContext, messageContext, type Page, toMessage } from './message.js'
import type { Senders } from './senders.js'

/** Most messages one `new_and_updated` answers; `hasMore` asks for the rest. */
export const CHANGES_LIMIT = 500

/**
 * `new_and_updated` reads again what changed this long before its sync point: a message stored
 * by a transaction that began before the last sync and committed after it is not missed (clients
 * drop what they already have by messageID).
 */
export const SYNC_OVERLAP_MS = 5000

/**
 * Most rooms one room list answers, also when the client asks for no page: their last messages
 * are one answer's worth (docs/reference/quotas.md).
 */
export const ROOM_LIST_LIMIT = 500

/** Which page of rooms: at most `limit`, after the room `after` names (the last of the page before). */
export interface RoomListPage {
  limit?: number
  after?: RoomListCursor | undefined
}

export interface RoomList {
  rooms: RoomListEntry[]
  hasMore: boolean
}

export interface RoomListEntry {
  room: Room
  lastMessage: Message | null
  unreadCount: number
  /** The user's own state of the room: muted, pinned, marked as unread. */
  state: RoomState
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
    private readonly people: Pick<People, 'roomStates' | 'blocks'>,
  ) {}

  private readonly withLinks = (data: Record<string, unknown>) => this.files.withLinks(data)

  /**
   * Room lists are read one at a time, each in a turn of the event loop of its own: a list of
   * hundreds of rooms holds the loop for tens of milliseconds (on SQLite its queries too), and a
   * flood of them must leave room for everything else (/healthz, sends) between any two.
   */
  private readonly lists = new Semaphore(1)

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
    const messages = changes.flatMap((row) => {
      const { room, participants } = byRoom.get(row.room_id) as RoomAccess
      // What the caller cleared stays cleared.
      if (row.created <= clearedUpTo(participants, client.userID)) return []
      return [toMessage(row, messageContext(room, participants, senders, this.withLinks))]
    })
    return { messages: await this.people.blocks.markedFor(client.userID, messages), hasMore }
  }

  /**
   * A page of the user's rooms (newest message first) with each one's newest message and count
   * of unread messages, and whether more rooms follow. The first page (no `after`) moves the
   * session's sync point to now: `new_and_updated` answers what changes after this.
   */
  roomListAndUnread(client: ClientIdentity, page: RoomListPage = {}): Promise<RoomList> {
    return this.lists.run(async () => {
      await nextTurn()
      return this.readRoomList(client, page)
    })
  }

  // Each read and each slice of the conversion in a turn of its own: a page of 500 rooms is some
  // 50 ms of work (on SQLite, its queries too), and /healthz or a send waits only for one step.
  private async readRoomList(client: ClientIdentity, page: RoomListPage): Promise<RoomList> {
    const db = this.database.db
    const limit = page.limit ?? ROOM_LIST_LIMIT
    if (!page.after) await this.repositories.sessions.setSyncPoint(db, client.sessionID, this.clock.now())
    const found = await this.repositories.rooms.roomPageOfUser(db, {
      userID: client.userID,
      limit: limit + 1,
      before: page.after,
    })
    const rooms = found.slice(0, limit)
    const roomIDs = rooms.map((room) => room.id)
    const lastMessages = await inTurn(() => this.repositories.messages.lastMessagesOfRooms(db, roomIDs))
    const counts = await inTurn(() => this.repositories.messages.unreadCounts(db, client.userID, roomIDs))
    const participants = await inTurn(() => this.repositories.rooms.participantsOfRooms(db, roomIDs))
    const states = await inTurn(() => this.people.roomStates.of(client.userID, roomIDs))
    const senders = await inTurn(() =>
      this.senders.of(
        client.organizationID,
        lastMessages.map((m) => m.sender_id),
      ),
    )
    const unread = new Map(counts.map((c) => [c.room_id, Number(c.unread)]))
    const last = new Map(lastMessages.map((m) => [m.room_id, m]))
    const participantsOf = byRoom(participants)
    const entries: RoomListEntry[] = []
    await eachInTurns(rooms, 100, (room) => {
      const roomParticipants = participantsOf.get(room.id) ?? []
      const newest = last.get(room.id)
      const message =
        newest && newest.created > clearedUpTo(roomParticipants, client.userID) ? newest : undefined
      const context = messageContext(room, roomParticipants, senders, this.withLinks)
      entries.push({
        room: toRoom(room, roomParticipants),
        lastMessage: message ? toMessage(message, context) : null,
        unreadCount: unread.get(room.id) ?? 0,
        state: states.get(room.id) as RoomState,
      })
    })
    // A group room's last message by someone the user blocked is marked for them.
    const lasts = entries.flatMap((entry) => (entry.lastMessage ? [entry.lastMessage] : []))
    const shown = new Map(
      (await this.people.blocks.markedFor(client.userID, lasts)).map((m) => [m.roomID, m]),
    )
    for (const entry of entries) entry.lastMessage = shown.get(entry.room.roomID) ?? null
    return { rooms: entries, hasMore: found.length > limit }
  }

  /**
   * For a room list's rooms with more than one unread message, their newest messages, as many as
   * are unread: at most `perRoom` a room and about `total` in all, rooms listed first first (the
   * others keep only their last message). A few queries, however many rooms.
   */
  unreadMessages(
    client: ClientIdentity,
    entries: readonly RoomListEntry[],
    limits: { perRoom: number; total: number },
  ): Promise<Message[]> {
    return this.lists.run(async () => {
      await nextTurn()
      return this.readUnreadMessages(client, entries, limits)
    })
  }

  private async readUnreadMessages(
    client: ClientIdentity,
    entries: readonly RoomListEntry[],
    limits: { perRoom: number; total: number },
  ): Promise<Message[]> {
    const db = this.database.db
    const roomIDs: string[] = []
    let left = limits.total
    for (const { room, unreadCount } of entries) {
      const count = Math.min(unreadCount, limits.perRoom)
      if (count <= 1 || count > left) continue
      roomIDs.push(room.roomID)
      left -= count
    }
    const rows = await this.repositories.messages.unreadTails(db, {
      userID: client.userID,
      roomIDs,
      perRoom: limits.perRoom,
    })
    const rooms = await inTurn(() => this.repositories.rooms.findRooms(db, roomIDs))
    const participants = await inTurn(() => this.repositories.rooms.participantsOfRooms(db, roomIDs))
    const senders = await inTurn(() =>
      this.senders.of(
        client.organizationID,
        rows.map((row) => row.sender_id),
      ),
    )
    const participantsOf = byRoom(participants)
    const contexts = new Map(
      rooms.map((row) => [
        row.id,
        messageContext(row, participantsOf.get(row.id) ?? [], senders, this.withLinks),
      ]),
    )
    const messages: Message[] = []
    await eachInTurns(rows, 100, (row) =>
      messages.push(toMessage(row, contexts.get(row.room_id) as MessageContext)),
    )
    return this.people.blocks.markedFor(client.userID, messages)
  }
}

/** `read` in the next turn of the event loop. */
async function inTurn<T>(read: () => Promise<T>): Promise<T> {
  await nextTurn()
  return read()
}

/** Participants by room, in the order given. */
function byRoom<T extends { room_id: string }>(rows: readonly T[]): Map<string, T[]> {
  const grouped = new Map<string, T[]>()
  for (const row of rows) {
    const group = grouped.get(row.room_id)
    if (group) group.push(row)
    else grouped.set(row.room_id, [row])
  }
  return grouped
}
