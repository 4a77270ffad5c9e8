import type { Kysely, Updateable } from 'kysely'
import type { RoomStatesTable, Schema } from '../../storage/schema.js'

// Each user's own state of their rooms: one row per user and room, made on its first change.

export type RoomStateChange = Pick<Updateable<RoomStatesTable>, 'muted_until' | 'pinned_at' | 'marked_unread'>

/** Sets these columns of the user's state of each room (made if none); answers the rows as they are. */
export const changeStates = (
  db: Kysely<Schema>,
  userID: string,
  roomIDs: readonly string[],
  change: RoomStateChange,
  now: number,
) =>
  db
    .insertInto('room_states')
    .values(roomIDs.map((room_id) => ({ user_id: userID, room_id, ...change, updated: now })))
    .onConflict((c) => c.columns(['user_id', 'room_id']).doUpdateSet({ ...change, updated: now }))
    .returningAll()
    .execute()

/** The user's state of these rooms (rooms with none are left out). */
export const statesOf = (db: Kysely<Schema>, userID: string, roomIDs: readonly string[]) =>
  roomIDs.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('room_states')
        .selectAll()
        .where('user_id', '=', userID)
        .where('room_id', 'in', roomIDs)
        .execute()

/** The user's states of rooms they are still in with something set, by when it changed. */
export const setStatesOf = (db: Kysely<Schema>, userID: string) =>
  db
    .selectFrom('room_states as s')
    .innerJoin('room_participants as p', (join) =>
      join.onRef('p.room_id', '=', 's.room_id').onRef('p.user_id', '=', 's.user_id'),
    )
    .selectAll('s')
    .where('s.user_id', '=', userID)
    .where((eb) =>
      eb.or([
        eb('s.muted_until', 'is not', null),
        eb('s.pinned_at', 'is not', null),
        eb('s.marked_unread', '=', 1),
      ]),
    )
    .orderBy('s.updated')
    .orderBy('s.room_id')
    .execute()

/** Those of `userIDs` who muted the room as of `now`. */
export const mutedAmong = async (
  db: Kysely<Schema>,
  roomID: string,
  userIDs: readonly string[],
  now: number,
): Promise<Set<string>> => {
  if (userIDs.length === 0) return new Set()
  const rows = await db
    .selectFrom('room_states')
    .select('user_id')
    .where('room_id', '=', roomID)
    .where('user_id', 'in', userIDs)
    .where((eb) => eb.or([eb('muted_until', '=', 0), eb('muted_until', '>', now)]))
    .execute()
  return new Set(rows.map((row) => row.user_id))
}

/** Reading a room ends its mark as unread: the rooms whose mark this cleared. */
export const clearUnreadMarks = async (
  db: Kysely<Schema>,
  userID: string,
  roomIDs: readonly string[],
  now: number,
) =>
  roomIDs.length === 0
    ? []
    : db
        .updateTable('room_states')
        .set({ marked_unread: 0, updated: now })
        .where('user_id', '=', userID)
        .where('room_id', 'in', roomIDs)
        .where('marked_unread', '=', 1)
        .returningAll()
        .execute()

/** Erasure: the user's states of rooms. */
export const eraseStatesOf = (db: Kysely<Schema>, userID: string) =>
  db.deleteFrom('room_states').where('user_id', '=', userID).execute()
