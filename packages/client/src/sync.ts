import { ParleyError } from './errors.js'
import type { Message, MessagePage } from './types.js'

// The message stream of watched rooms (docs/reference/real-time.md: whenever a socket closes): each
// messageID reaches the application once, in `created` order per room. While no socket is open,
// and while a room is being read after one opened, what arrives for the room (live frames, sent
// messages) is held; the room is read with list_by_room/after from the last `created` it saw
// less 10 s, page by page, dropping known messageIDs; then the held messages follow, in order.

/** How far back a resync reads: an announcement can overtake a slightly older one in flight. */
export const RESYNC_OVERLAP_MS = 10_000
/** IDs remembered per room; older ones are forgotten, and anything older than them is known. */
const MAX_KNOWN = 2_000
const PAGE_SIZE = 100

/** The room cannot be read by this user any more (40301 not a participant, 40401 no such room). */
const isGone = (error: unknown) =>
  error instanceof ParleyError && (error.status === 403 || error.status === 404)

interface RoomState {
  /** The newest `created` delivered (or the watch's starting point). */
  cursor: number
  /** messageID → created, oldest first. */
  known: Map<string, number>
  /** Every message at or before this was delivered, or predates the watch (its ID may be forgotten). */
  floor: number
  /** Held while the room is not live; undefined once it is. */
  held: Message[] | undefined
  /** Resyncs of this room run one after another. */
  chain: Promise<void>
  /** Resyncs requested and not finished: the room turns live when the last one succeeds. */
  pending: number
}

export interface SyncOptions {
  /** Reads a page of `roomID` after `minCreated`. */
  listAfter(roomID: string, minCreated: number, limit: number): Promise<MessagePage>
  /** A new message of a watched room, in order. */
  deliver(message: Message): void
  /** A new message of a room not watched. */
  activity(message: Message): void
  /** A watched room that cannot be read any more (the user left it, or it is gone). */
  lost(roomID: string, error: unknown): void
}

export class MessageSync {
  private readonly rooms = new Map<string, RoomState>()
  /** Messages of rooms not watched, already passed on as activity (bounded like a room's). */
  private readonly seenElsewhere = new Set<string>()
  /** A socket is open: rooms can be read and turn live. */
  private online = false

  constructor(private readonly options: SyncOptions) {}

  watched(): string[] {
    return [...this.rooms.keys()]
  }

  isWatched(roomID: string): boolean {
    return this.rooms.has(roomID)
  }

  /** Follows a room: its messages created after `after` (0: the whole history). */
  watch(roomID: string, after = 0): Promise<void> {
    if (this.rooms.has(roomID)) return Promise.resolve()
    this.rooms.set(roomID, {
      cursor: after,
      known: new Map(),
      // The application has what came before (a page of history it read itself).
      floor: after,
      held: [],
      chain: Promise.resolve(),
      pending: 0,
    })
    return this.online ? this.resync(roomID) : Promise.resolve()
  }

  unwatch(roomID: string): void {
    this.rooms.delete(roomID)
  }

  /** The socket closed: hold everything until the next one is open and each room has been read. */
  disconnected(): void {
    this.online = false
    for (const room of this.rooms.values()) room.held ??= []
  }

  /** A socket opened: read every watched room (rejects when a read failed and should be retried). */
  async connected(): Promise<void> {
    this.online = true
    for (const room of this.rooms.values()) room.held ??= []
    await Promise.all(this.watched().map((roomID) => this.resync(roomID)))
  }

  /** A message that arrived (a socket frame, a send's answer). */
  receive(message: Message): void {
    const room = this.rooms.get(message.roomID)
    if (!room) this.elsewhere(message)
    else if (room.held) room.held.push(message)
    else this.accept(room, message)
  }

  /**
   * A read, delivered or deleted change: true when the application has the message and should
   * hear of it. A held copy is replaced instead, so the message is delivered in its latest state.
   */
  update(message: Message): boolean {
    const room = this.rooms.get(message.roomID)
    if (!room) return false
    const held = room.held?.findIndex((m) => m.messageID === message.messageID) ?? -1
    if (held >= 0) room.held?.splice(held, 1, message)
    return room.known.has(message.messageID) || message.created <= room.floor
  }

  private elsewhere(message: Message): void {
    if (this.seenElsewhere.has(message.messageID)) return
    if (this.seenElsewhere.size >= MAX_KNOWN) this.seenElsewhere.clear()
    this.seenElsewhere.add(message.messageID)
    this.options.activity(message)
  }

  /** Reads the room from its cursor (after any resync of it under way). */
  resync(roomID: string): Promise<void> {
    const room = this.rooms.get(roomID)
    if (!room) return Promise.resolve()
    room.held ??= []
    room.pending++
    const run = room.chain.then(() => this.read(roomID, room))
    room.chain = run.catch(() => {})
    return run.finally(() => {
      room.pending--
    })
  }

  private async read(roomID: string, room: RoomState): Promise<void> {
    try {
      let after = Math.max(0, room.cursor - RESYNC_OVERLAP_MS)
      for (;;) {
        const page = await this.options.listAfter(roomID, after, PAGE_SIZE)
        if (this.rooms.get(roomID) !== room) return
        for (const message of page.messages) this.accept(room, message)
        const last = page.messages.at(-1)
        if (!page.hasMore || !last) break
        after = last.created
      }
    } catch (error) {
      // Anything but "not yours / not there" may pass: the room stays held, and the caller closes
      // the socket so that the whole procedure starts over.
      if (!isGone(error) || !this.online) throw error
      this.rooms.delete(roomID)
      this.release(room)
      this.options.lost(roomID, error)
      return
    }
    if (room.pending === 1 && this.online) this.release(room)
  }

  /** The room turns live: what was held follows what was read, in order. */
  private release(room: RoomState): void {
    const held = (room.held ?? []).sort((a, b) => a.created - b.created)
    room.held = undefined
    for (const message of held) this.accept(room, message)
  }

  /** Delivers a message the room does not know yet. */
  private accept(room: RoomState, message: Message): void {
    if (room.known.has(message.messageID) || message.created <= room.floor) return
    room.known.set(message.messageID, message.created)
    room.cursor = Math.max(room.cursor, message.created)
    if (room.known.size > MAX_KNOWN) this.forgetOldest(room)
    this.options.deliver(message)
  }

  private forgetOldest(room: RoomState): void {
    const oldest = [...room.known].sort((a, b) => a[1] - b[1]).slice(0, MAX_KNOWN / 4)
    for (const [id, created] of oldest) {
      room.known.delete(id)
      room.floor = Math.max(room.floor, created)
    }
  }
}
