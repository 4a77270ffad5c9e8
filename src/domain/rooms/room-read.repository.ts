import { type Kysely, type QueryCreator, type RawBuilder, type Selectable, sql } from 'kysely'
import { prepareQuery } from '../../storage/prepared.js'
import { picker } from '../../storage/rows.js'
import type { RoomParticipantsTable, RoomsTable, Schema, UsersTable } from '../../storage/schema.js'

// How a room is read wherever it is checked (access, a send): the room, its participants and
// some of them as users, in one query.

const ROOM_COLUMNS = [
  'id',
  'organization_id',
  'type',
  'name',
  'image_url',
  'created',
  'updated',
  'last_message_created',
  'agents_read_up_to',
  'message_changes',
  'xc_room_id',
  'photo_file_id',
  'deleted_at',
] as const
const PARTICIPANT_COLUMNS = [
  'room_id',
  'user_id',
  'joined',
  'read_up_to',
  'delivered_up_to',
  'is_admin',
  'cleared_up_to',
] as const
const USER_COLUMNS = [
  'id',
  'organization_id',
  'xc_user_id',
  'full_name',
  'email',
  'phone',
  'username',
  'photo_thumbnail_url',
  'photo_fullsize_url',
  'user_role_code',
  'bio',
  'created',
  'updated',
  'deactivated_at',
  'deleted_at',
] as const

/**
 * One row per participant of the rooms `rooms` picks (one with nulls for a room nobody is in), in
 * joining order: the room's columns as r_*, the participant's as p_*, and, for the participants
 * `users` picks, the user's as u_*. roomReadOf reads them.
 */
export const roomReadRows = (
  db: QueryCreator<Schema>,
  rooms: RawBuilder<boolean>,
  users: RawBuilder<boolean>,
) =>
  db
    .selectFrom('rooms as r')
    .leftJoin('room_participants as p', 'p.room_id', 'r.id')
    .leftJoin('users as u', (join) => join.onRef('u.id', '=', 'p.user_id').on(users))
    .select([
      ...ROOM_COLUMNS.map((c) => `r.${c} as r_${c}` as const),
      ...PARTICIPANT_COLUMNS.map((c) => `p.${c} as p_${c}` as const),
      ...USER_COLUMNS.map((c) => `u.${c} as u_${c}` as const),
    ])
    .where(rooms)
    .orderBy('p.joined')
    .orderBy('p.user_id')

/** The room's rows as roomReadOf reads them, with two users' (the same twice: one). */
export const selectRoomRead = (
  db: QueryCreator<Schema>,
  args: { roomID: string; userA: string; userB: string },
) => roomReadRows(db, sql`r.id = ${args.roomID}`, sql`p.user_id in (${args.userA}, ${args.userB})`)

const roomWithParticipants = prepareQuery('rooms.roomWithParticipants', selectRoomRead)

// The same for several rooms (PostgreSQL's arrays), with the users any of them asked for.
const roomsWithParticipants = prepareQuery(
  'rooms.roomsWithParticipants',
  (db, args: { roomIDs: string[]; userIDs: string[] }) =>
    roomReadRows(db, sql`r.id = any(${args.roomIDs})`, sql`p.user_id = any(${args.userIDs})`),
  { dialect: 'postgres' },
)

export interface RoomRead {
  room: Selectable<RoomsTable>
  participants: Selectable<RoomParticipantsTable>[]
  /** The users asked for, among the participants. */
  users: Selectable<UsersTable>[]
}

/** What a room read reads: the room, and up to two of its participants as users. */
export interface RoomReadKey {
  roomID: string
  userIDs: readonly [string?, (string | undefined)?]
}

/**
 * The room, its participants (in joining order) and up to two of them as users (the sender and
 * the recipient of a message, say), in one query; undefined when there is no such room.
 */
export async function readRoom(
  db: Kysely<Schema>,
  roomID: string,
  userIDs: RoomReadKey['userIDs'] = [],
): Promise<RoomRead | undefined> {
  return roomReadOf(await roomWithParticipants.run(db, { roomID, ...usersToRead(userIDs) }))
}

/** Several room reads, each as readRoom reads it, in one query (PostgreSQL only). */
export async function readRooms(
  db: Kysely<Schema>,
  keys: readonly RoomReadKey[],
): Promise<(RoomRead | undefined)[]> {
  const userIDs = new Set(keys.flatMap((key) => key.userIDs.filter((id) => id !== undefined)))
  const roomIDs = [...new Set(keys.map((key) => key.roomID))]
  const rowsOf = new Map<string, Record<string, unknown>[]>()
  for (const row of await roomsWithParticipants.run(db, { roomIDs, userIDs: [...userIDs] })) {
    const roomID = row.r_id as string
    const rows = rowsOf.get(roomID) ?? []
    if (rows.length === 0) rowsOf.set(roomID, rows)
    rows.push(row)
  }
  return keys.map(({ roomID, userIDs: [userA, userB] }) => {
    // A user another read asked for is not this read's.
    const asked = (row: Record<string, unknown>) =>
      row.u_id === null || row.u_id === userA || row.u_id === userB
    const rows = rowsOf.get(roomID) ?? []
    return roomReadOf(rows.map((row) => (asked(row) ? row : { ...row, u_id: null })))
  })
}

/** The two users a room read reads ('' is no user's ID: none asked for). */
export const usersToRead = ([userA = '', userB = userA]: RoomReadKey['userIDs']) => ({ userA, userB })

const pickRoom = picker('r_', ROOM_COLUMNS)
const pickParticipant = picker('p_', PARTICIPANT_COLUMNS)
const pickUser = picker('u_', USER_COLUMNS)

/** The room read from selectRoomRead's rows; undefined when there is no such room (no row). */
export function roomReadOf(rows: readonly Record<string, unknown>[]): RoomRead | undefined {
  const [first] = rows
  if (!first) return undefined
  const joined = rows.filter((row) => row.p_user_id !== null)
  return {
    room: pickRoom(first),
    participants: joined.map(pickParticipant),
    users: joined.filter((row) => row.u_id !== null).map(pickUser),
  }
}
