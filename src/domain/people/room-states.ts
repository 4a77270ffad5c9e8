import type { Kysely } from 'kysely'
import { AppError, paramError } from '../../errors/app-error.js'
import type { Schema } from '../../storage/schema.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { RoomsService } from '../rooms/rooms.service.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import type { PeopleDependencies } from './contacts.js'
import { PINNED_ROOMS_PER_USER, type RoomState, toRoomState } from './room-state.js'
import type { RoomStateChange } from './room-states.repository.js'

/**
 * Each user's own state of their rooms (docs/reference/client-api.md, "Your rooms' state"): muted,
 * pinned, marked as unread. It shows in their room list, and each change reaches their other
 * devices at once (`room/state`). A muted room's messages still arrive; the `message.new` event
 * says the room is muted for that recipient (no push).
 */
export class RoomStates {
  constructor(private readonly deps: PeopleDependencies & { rooms: RoomsService; happenings: Dispatcher }) {}

  /** Mutes the rooms until `until` (epoch ms; 0: until unmuted). */
  mute(client: ClientIdentity, roomIDs: string[], until: number): Promise<RoomState[]> {
    if (until !== 0 && until <= this.deps.clock.now())
      throw paramError('expiredAt', 'must be in the future, or 0')
    return this.change(client, roomIDs, { muted_until: until })
  }

  unmute(client: ClientIdentity, roomIDs: string[]): Promise<RoomState[]> {
    return this.change(client, roomIDs, { muted_until: null })
  }

  /** Pins the rooms (pinning again moves one to the top); at most PINNED_ROOMS_PER_USER (40902). */
  pin(client: ClientIdentity, roomIDs: string[]): Promise<RoomState[]> {
    return this.change(client, roomIDs, { pinned_at: this.deps.clock.now() }, async (trx) => {
      const states = await this.deps.repositories.roomStates.setStatesOf(trx, client.userID)
      if (states.filter((s) => s.pinned_at !== null).length > PINNED_ROOMS_PER_USER)
        throw new AppError('limitReached', `A user pins at most ${PINNED_ROOMS_PER_USER} rooms`, 'roomIDs')
    })
  }

  unpin(client: ClientIdentity, roomIDs: string[]): Promise<RoomState[]> {
    return this.change(client, roomIDs, { pinned_at: null })
  }

  /** Marks the rooms as unread, until the user reads a message of theirs (a read receipt). */
  markUnread(client: ClientIdentity, roomIDs: string[]): Promise<RoomState[]> {
    return this.change(client, roomIDs, { marked_unread: 1 })
  }

  /** The caller's rooms with something set (muted now, pinned, marked), by when that last changed. */
  async list(client: ClientIdentity): Promise<RoomState[]> {
    const now = this.deps.clock.now()
    const rows = await this.deps.repositories.roomStates.setStatesOf(this.deps.database.db, client.userID)
    return rows.map((row) => toRoomState(row.room_id, row, now))
  }

  /** The user's state of each of these rooms (for their room list). */
  async of(userID: string, roomIDs: readonly string[]): Promise<Map<string, RoomState>> {
    const now = this.deps.clock.now()
    const rows = await this.deps.repositories.roomStates.statesOf(this.deps.database.db, userID, roomIDs)
    const byRoom = new Map(rows.map((row) => [row.room_id, row]))
    return new Map(roomIDs.map((roomID) => [roomID, toRoomState(roomID, byRoom.get(roomID), now)]))
  }

  /**
   * In a read receipt's transaction: the rooms' marks as unread end. Answers what to announce
   * once it commits (`announce`).
   */
  async readIn(trx: Kysely<Schema>, userID: string, roomIDs: readonly string[]): Promise<RoomState[]> {
    const now = this.deps.clock.now()
    const rows = await this.deps.repositories.roomStates.clearUnreadMarks(trx, userID, roomIDs, now)
    return rows.map((row) => toRoomState(row.room_id, row, now))
  }

  /** Tells the user's devices (all, or all but the session that made the change) how the rooms are now. */
  async announce(userID: string, states: RoomState[], exceptSessionID?: string): Promise<void> {
    if (states.length > 0)
      await this.deps.happenings.tell('room.state.changed', { userID, states, exceptSessionID })
  }

  private async change(
    client: ClientIdentity,
    roomIDs: string[],
    change: RoomStateChange,
    check?: (trx: Kysely<Schema>) => Promise<void>,
  ): Promise<RoomState[]> {
    const unique = [...new Set(roomIDs)]
    for (const roomID of unique) await this.deps.rooms.access(client, roomID)
    const now = this.deps.clock.now()
    const rows = await this.deps.database.transaction(async (trx) => {
      const changed = await this.deps.repositories.roomStates.changeStates(
        trx,
        client.userID,
        unique,
        change,
        now,
      )
      await check?.(trx)
      return changed
    })
    const states = rows.map((row) => toRoomState(row.room_id, row, now))
    await this.announce(client.userID, states, client.sessionID)
    return states
  }
}
