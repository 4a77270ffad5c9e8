import type { Insertable, Kysely, Selectable } from 'kysely'
import { countRows } from '../../storage/count.js'
import { leaseRows } from '../../storage/leases.js'
import type { Dialect, ScheduledMessagesTable, Schema } from '../../storage/schema.js'

export type ScheduledRow = Selectable<ScheduledMessagesTable>

/** Stores a new scheduled message; none when the sender scheduled this localID in the room before. */
export const insertScheduled = (db: Kysely<Schema>, row: Insertable<ScheduledMessagesTable>) =>
  db
    .insertInto('scheduled_messages')
    .values(row)
    .onConflict((c) => c.columns(['sender_id', 'local_id', 'room_id']).doNothing())
    .returningAll()
    .executeTakeFirst()

export const findScheduledByLocalID = (
  db: Kysely<Schema>,
  senderID: string,
  localID: string,
  roomID: string,
) =>
  db
    .selectFrom('scheduled_messages')
    .selectAll()
    .where('sender_id', '=', senderID)
    .where('local_id', '=', localID)
    .where('room_id', '=', roomID)
    .executeTakeFirst()

export const findScheduled = (db: Kysely<Schema>, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : db.selectFrom('scheduled_messages').selectAll().where('id', 'in', ids).execute()

/** The sender's pending scheduled messages, in one room or all, soonest first. */
export const pendingOf = (db: Kysely<Schema>, senderID: string, roomID: string | undefined, limit: number) =>
  db
    .selectFrom('scheduled_messages')
    .selectAll()
    .where('sender_id', '=', senderID)
    .where('status', '=', 'pending')
    .$if(roomID !== undefined, (q) => q.where('room_id', '=', roomID as string))
    .orderBy('scheduled_time')
    .orderBy('id')
    .limit(limit)
    .execute()

export const countPendingIn = (db: Kysely<Schema>, senderID: string, roomID: string) =>
  countRows(
    db
      .selectFrom('scheduled_messages')
      .where('sender_id', '=', senderID)
      .where('room_id', '=', roomID)
      .where('status', '=', 'pending'),
  )

/**
 * Changes a pending scheduled message that no instance is sending (its lease lapsed or never
 * taken); answers whether it did.
 */
export const changePending = async (
  db: Kysely<Schema>,
  id: string,
  now: number,
  change: Partial<Pick<ScheduledRow, 'body' | 'scheduled_time' | 'status'>>,
) => {
  const result = await db
    .updateTable('scheduled_messages')
    .set({ ...change, updated: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Whether a pending scheduled message is due by `now` (a read, before a claim takes the writer). */
export const anyDue = async (db: Kysely<Schema>, now: number) =>
  (await db
    .selectFrom('scheduled_messages')
    .select('id')
    .where('status', '=', 'pending')
    .where('scheduled_time', '<=', now)
    .limit(1)
    .executeTakeFirst()) !== undefined

/**
 * Leases up to `limit` pending scheduled messages due by `now` (or those of `ids`, due or not),
 * none another instance holds; on PostgreSQL rows another instance is claiming are skipped
 * (FOR UPDATE SKIP LOCKED). Run in a transaction.
 */
export async function claimScheduled(
  db: Kysely<Schema>,
  claim: { now: number; leaseUntil: number; limit: number; dialect: Dialect; ids?: readonly string[] },
): Promise<ScheduledRow[]> {
  const { now, leaseUntil, limit, dialect, ids } = claim
  const due = await db
    .selectFrom('scheduled_messages')
    .selectAll()
    .where('status', '=', 'pending')
    .$if(ids === undefined, (q) => q.where('scheduled_time', '<=', now))
    .$if(ids !== undefined, (q) => q.where('id', 'in', ids as string[]))
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .orderBy('scheduled_time')
    .limit(limit)
    .$if(dialect === 'postgres', (q) => q.forUpdate().skipLocked())
    .execute()
  return leaseRows(db, 'scheduled_messages', due, leaseUntil)
}

/** Settles a claimed scheduled message: sent (as `messageID`) or dropped. */
export const settleScheduled = (
  db: Kysely<Schema>,
  id: string,
  settled: { status: 'sent' | 'dropped'; messageID: string | null; now: number },
) =>
  db
    .updateTable('scheduled_messages')
    .set({ status: settled.status, message_id: settled.messageID, lease_until: null, updated: settled.now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst()

/** Whether the user may still send to the room: active, not deleted, and a participant. */
export const senderMaySend = async (db: Kysely<Schema>, userID: string, roomID: string) =>
  (await db
    .selectFrom('users')
    .innerJoin('room_participants', 'room_participants.user_id', 'users.id')
    .select('users.id')
    .where('users.id', '=', userID)
    .where('room_participants.room_id', '=', roomID)
    .where('users.deactivated_at', 'is', null)
    .where('users.deleted_at', 'is', null)
    .executeTakeFirst()) !== undefined

/** Erasure: the user's scheduled messages go (sent ones are messages, erased as such). */
export async function deleteScheduledOf(db: Kysely<Schema>, senderID: string): Promise<void> {
  await db.deleteFrom('scheduled_messages').where('sender_id', '=', senderID).execute()
}
