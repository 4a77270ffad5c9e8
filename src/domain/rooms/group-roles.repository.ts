import type { Kysely } from 'kysely'
import type { Dialect, Schema } from '../../storage/schema.js'
import { RoomType } from './room.js'

// Group rooms' admins, the customer's room IDs, deletion and cleared histories
// (docs/reference/client-api.md#group-roles).

/** Makes the participants admins (`admin`) or members. */
export const setAdmins = (db: Kysely<Schema>, roomID: string, userIDs: readonly string[], admin: boolean) =>
  userIDs.length === 0
    ? Promise.resolve()
    : db
        .updateTable('room_participants')
        .set({ is_admin: admin ? 1 : 0 })
        .where('room_id', '=', roomID)
        .where('user_id', 'in', userIDs)
        .execute()

/**
 * The room's participants and whether each is an admin, as they are now: on PostgreSQL under the
 * room's row lock, so that changes of one room's roles run one after another.
 */
export const lockedRoles = async (db: Kysely<Schema>, roomID: string, dialect: Dialect) => {
  if (dialect === 'postgres')
    await db.selectFrom('rooms').select('id').where('id', '=', roomID).forUpdate().execute()
  return db
    .selectFrom('room_participants')
    .select(['user_id', 'is_admin'])
    .where('room_id', '=', roomID)
    .execute()
}

export const updateRoomFields = (
  db: Kysely<Schema>,
  roomID: string,
  fields: { name?: string; image_url?: string; xc_room_id?: string; photo_file_id?: string | null },
  now: number,
) =>
  db
    .updateTable('rooms')
    .set({ ...fields, updated: now })
    .where('id', '=', roomID)
    .execute()

/** Marks the room deleted and takes everyone out of it. */
export async function deleteRoom(db: Kysely<Schema>, roomID: string, now: number): Promise<void> {
  await db.updateTable('rooms').set({ deleted_at: now, updated: now }).where('id', '=', roomID).execute()
  await db.deleteFrom('room_participants').where('room_id', '=', roomID).execute()
}

/** Hides the room's messages up to its newest for the participant; that `created`. */
export async function clearHistory(db: Kysely<Schema>, roomID: string, userID: string): Promise<number> {
  const room = await db
    .selectFrom('rooms')
    .select('last_message_created')
    .where('id', '=', roomID)
    .executeTakeFirstOrThrow()
  const upTo = room.last_message_created
  await db
    .updateTable('room_participants')
    .set({ cleared_up_to: upTo })
    .where('room_id', '=', roomID)
    .where('user_id', '=', userID)
    .execute()
  return upTo
}

export const findRoomByXcRoomID = (db: Kysely<Schema>, organizationID: string, xcRoomID: string) =>
  db
    .selectFrom('rooms')
    .select('id')
    .where('organization_id', '=', organizationID)
    .where('xc_room_id', '=', xcRoomID)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()

/** The group rooms both users are in, newest first. */
export const groupsInCommon = (db: Kysely<Schema>, userID: string, otherUserID: string) =>
  db
    .selectFrom('rooms as r')
    .innerJoin('room_participants as mine', 'mine.room_id', 'r.id')
    .innerJoin('room_participants as theirs', 'theirs.room_id', 'r.id')
    .select('r.id')
    .where('mine.user_id', '=', userID)
    .where('theirs.user_id', '=', otherUserID)
    .where('r.type', '=', RoomType.group)
    .orderBy('r.id', 'desc')
    .execute()
