import type { Kysely, Selectable } from 'kysely'
import { newID } from '../../lib/ids.js'
import { prepareQuery } from '../../storage/prepared.js'
import type { MessagesTable, Schema } from '../../storage/schema.js'
import { nextMessageCreated, restoreLastMessageCreated } from '../rooms/rooms.repository.js'
import { NO_QUOTE, type Quote } from './message.js'

/** A retry's stored message: the same sender and localID in the same room. */
export const findBySenderLocalID = (db: Kysely<Schema>, senderID: string, localID: string, roomID: string) =>
  db
    .selectFrom('messages')
    .selectAll()
    .where('sender_id', '=', senderID)
    .where('local_id', '=', localID)
    .where('room_id', '=', roomID)
    .executeTakeFirst()

const insertUnlessRetry = prepareQuery('messages.insertUnlessRetry', (db, row: Selectable<MessagesTable>) =>
  db
    .insertInto('messages')
    .values({
      id: row.id,
      room_id: row.room_id,
      sender_id: row.sender_id,
      local_id: row.local_id,
      type: row.type,
      body: row.body,
      data: row.data,
      quote: row.quote,
      reply_to: row.reply_to,
      created: row.created,
      updated: row.updated,
      is_deleted: row.is_deleted,
    })
    .onConflict((c) => c.columns(['sender_id', 'local_id', 'room_id']).doNothing())
    .returning('id'),
)

/** Stores the message unless its (sender, localID, room) is taken; true when it was stored. */
export async function insertMessage(db: Kysely<Schema>, row: Selectable<MessagesTable>): Promise<boolean> {
  return (await insertUnlessRetry.run(db, row)).length > 0
}

export const findMessages = (db: Kysely<Schema>, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : db.selectFrom('messages').selectAll().where('id', 'in', ids).execute()

/**
 * A page of the room's messages beyond `bound`: `before` it, newest first, or `after` it, oldest
 * first. `created` is unique within a room, so consecutive pages neither overlap nor leave gaps.
 */
export const listPage = (
  db: Kysely<Schema>,
  page: { roomID: string; direction: 'before' | 'after'; bound: number; limit: number },
) =>
  db
    .selectFrom('messages')
    .selectAll()
    .where('room_id', '=', page.roomID)
    .where('created', page.direction === 'before' ? '<' : '>', page.bound)
    .orderBy('created', page.direction === 'before' ? 'desc' : 'asc')
    .limit(page.limit)
    .execute()

/** The newest message of each room the user is in. */
export const lastMessagesOfUser = (db: Kysely<Schema>, userID: string) =>
  db
    .selectFrom('messages as m')
    .innerJoin('rooms as r', (join) =>
      join.onRef('r.id', '=', 'm.room_id').onRef('r.last_message_created', '=', 'm.created'),
    )
    .innerJoin('room_participants as p', 'p.room_id', 'r.id')
    .selectAll('m')
    .where('p.user_id', '=', userID)
    .execute()

/** Per room of the user: messages from others after the user's read mark, not deleted. */
export const unreadCounts = (db: Kysely<Schema>, userID: string) =>
  db
    .selectFrom('messages as m')
    .innerJoin('room_participants as p', 'p.room_id', 'm.room_id')
    .select(['m.room_id', (eb) => eb.fn.countAll<number>().as('unread')])
    .where('p.user_id', '=', userID)
    .whereRef('m.created', '>', 'p.read_up_to')
    .where('m.sender_id', '<>', userID)
    .where('m.is_deleted', '=', 0)
    .groupBy('m.room_id')
    .execute()

export const markDeleted = (db: Kysely<Schema>, ids: readonly string[], now: number) =>
  db
    .updateTable('messages')
    .set({ is_deleted: 1, body: '', data: '{}', updated: now })
    .where('id', 'in', ids)
    .execute()

export interface NewMessage {
  roomID: string
  senderID: string
  localID: string
  type: number
  body: string
  data: Record<string, unknown>
  quote?: Quote | undefined
  replyTo?: string | undefined
  now: number
}

/**
 * Stores a message in its room, inside the caller's transaction: `created` = max(now, previous + 1)
 * for the room. Undefined when (sender, localID, room) is taken: a retry.
 */
export async function storeMessage(
  db: Kysely<Schema>,
  message: NewMessage,
): Promise<Selectable<MessagesTable> | undefined> {
  const row: Selectable<MessagesTable> = {
    id: newID(),
    room_id: message.roomID,
    sender_id: message.senderID,
    local_id: message.localID,
    type: message.type,
    body: message.body,
    data: JSON.stringify(message.data),
    quote: JSON.stringify(message.quote ?? NO_QUOTE),
    reply_to: message.replyTo ?? null,
    created: await nextMessageCreated(db, message.roomID, message.now),
    updated: message.now,
    is_deleted: 0,
  }
  if (await insertMessage(db, row)) return row
  // A concurrent retry stored it first: the room's last message is still that one's. (The room's
  // row is locked since nextMessageCreated, so nothing else moved it meanwhile.)
  await restoreLastMessageCreated(db, message.roomID)
  return undefined
}
