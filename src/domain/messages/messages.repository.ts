import type { Kysely, Selectable } from 'kysely'
import { prepareQuery } from '../../storage/prepared.js'
import type { MessagesTable, Schema } from '../../storage/schema.js'
import { nextMessageCreated, restoreLastMessageCreated } from '../rooms/rooms.repository.js'
import { indexMessage, unindexMessages } from '../search/search.repository.js'
import { NO_QUOTE, type Quote } from './message.js'
import { MessageType } from './message-types.js'

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

/**
 * The data of a sender's latest messages in a room whose data mentions `text` (newest first, not
 * deleted): a chatbot's latest interactive messages, say, without reading the whole room.
 */
export const latestDataMentioning = (
  db: Kysely<Schema>,
  query: { roomID: string; senderID: string; text: string; limit: number },
) =>
  db
    .selectFrom('messages')
    .select('data')
    .where('room_id', '=', query.roomID)
    .where('sender_id', '=', query.senderID)
    .where('is_deleted', '=', 0)
    .where('data', 'like', `%${query.text}%`)
    .orderBy('created', 'desc')
    .limit(query.limit)
    .execute()

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

/** The sender's messages in the room created in (after, upTo], newest first, at most `limit`. */
export const sentBetween = (
  db: Kysely<Schema>,
  range: { roomID: string; senderID: string; after: number; upTo: number; limit: number },
) =>
  db
    .selectFrom('messages')
    .selectAll()
    .where('room_id', '=', range.roomID)
    .where('created', '>', range.after)
    .where('created', '<=', range.upTo)
    .where('sender_id', '=', range.senderID)
    .orderBy('created', 'desc')
    .limit(range.limit)
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

/**
 * The newest message of each of these rooms, in one query: `rooms.last_message_created` points at
 * it (`created` is unique within a room), found by the (room_id, created) index.
 */
export const lastMessagesOfRooms = (db: Kysely<Schema>, roomIDs: readonly string[]) =>
  roomIDs.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('messages as m')
        .innerJoin('rooms as r', (join) =>
          join.onRef('r.id', '=', 'm.room_id').onRef('r.last_message_created', '=', 'm.created'),
        )
        .selectAll('m')
        .where('r.id', 'in', roomIDs)
        .execute()

/** Messages of the user's rooms changed (sent or deleted) after `since`, oldest change first. */
export const changedSince = (db: Kysely<Schema>, userID: string, since: number, limit: number) =>
  db
    .selectFrom('messages as m')
    .innerJoin('room_participants as p', 'p.room_id', 'm.room_id')
    .selectAll('m')
    .where('p.user_id', '=', userID)
    .where('m.updated', '>', since)
    .orderBy('m.updated')
    .orderBy('m.created')
    .limit(limit)
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

/** Erases the messages' content, inside the caller's transaction: also from the search index. */
export async function markDeleted(db: Kysely<Schema>, ids: readonly string[], now: number) {
  await db
    .updateTable('messages')
    .set({ is_deleted: 1, body: '', data: '{}', updated: now })
    .where('id', 'in', ids)
    .execute()
  await unindexMessages(db, ids)
}

export interface NewMessage {
  /** The message's ID (the database's `ids.next()`). */
  id: string
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
 * for the room, and its words in the search index. Undefined when (sender, localID, room) is taken: a retry.
 */
export async function storeMessage(
  db: Kysely<Schema>,
  message: NewMessage,
): Promise<Selectable<MessagesTable> | undefined> {
  const row: Selectable<MessagesTable> = {
    id: message.id,
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
  if (await insertMessage(db, row)) {
    // The search index is kept in step by the same transaction; nobody says a system message.
    if (row.type !== MessageType.system)
      await indexMessage(db, { id: row.id, roomID: row.room_id, body: row.body })
    return row
  }
  // A concurrent retry stored it first: the room's last message is still that one's. (The room's
  // row is locked since nextMessageCreated, so nothing else moved it meanwhile.)
  await restoreLastMessageCreated(db, message.roomID)
  return undefined
}

/** The sender's messages, oldest first, at most `limit`; with `undeletedOnly`, those not deleted. */
export const sentBy = (
  db: Kysely<Schema>,
  senderID: string,
  query: { limit: number; undeletedOnly: boolean },
) =>
  db
    .selectFrom('messages')
    .selectAll()
    .where('sender_id', '=', senderID)
    .$if(query.undeletedOnly, (q) => q.where('is_deleted', '=', 0))
    .orderBy('created')
    .orderBy('id')
    .limit(query.limit)
    .execute()

/** The room's messages, oldest first, at most `limit`. */
export const firstOfRoom = (db: Kysely<Schema>, roomID: string, limit: number) =>
  db
    .selectFrom('messages')
    .selectAll()
    .where('room_id', '=', roomID)
    .orderBy('created')
    .limit(limit)
    .execute()
