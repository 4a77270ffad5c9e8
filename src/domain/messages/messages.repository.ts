import { type Kysely, sql } from 'kysely'
import { prepareQuery } from '../../storage/prepared.js'
import type { Schema } from '../../storage/schema.js'
import { unindexMessages } from '../search/search.repository.js'
import { NO_QUOTE, SYSTEM_SENDER_ID } from './message.js'

export { type NewMessage, storeMessage } from './store-message.js'

/** A retry's stored message: the same sender and localID in the same room. */
export const findBySenderLocalID = (db: Kysely<Schema>, senderID: string, localID: string, roomID: string) =>
  db
    .selectFrom('messages')
    .selectAll()
    .where('sender_id', '=', senderID)
    .where('local_id', '=', localID)
    .where('room_id', '=', roomID)
    .executeTakeFirst()

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
export const listPage = (db: Kysely<Schema>, page: Page) => pageOf.run(db, page)

interface Page {
  roomID: string
  direction: 'before' | 'after'
  bound: number
  limit: number
}

const pageOf = prepareQuery(
  'messages.page',
  (db, page: Page, direction) =>
    db
      .selectFrom('messages')
      .selectAll()
      .where('room_id', '=', page.roomID)
      .where('created', direction === 'before' ? '<' : '>', page.bound)
      .orderBy('created', direction === 'before' ? 'desc' : 'asc')
      .limit(page.limit),
  { shapeOf: (page) => page.direction, shapes: ['before', 'after'] },
)

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

/**
 * The newest message someone said (a person or a chatbot, not Parley's own notes) in each of these
 * rooms, in one query: what a case's row previews when its newest message is one of Parley's.
 * Rooms of Parley's notes alone are not in the answer.
 */
export const lastSaidOfRooms = (db: Kysely<Schema>, roomIDs: readonly string[]) =>
  roomIDs.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('messages as m')
        .innerJoin(
          (eb) =>
            eb
              .selectFrom('messages')
              .select(['room_id', (e) => e.fn.max('created').as('created')])
              .where('room_id', 'in', roomIDs)
              .where('sender_id', '<>', SYSTEM_SENDER_ID)
              .groupBy('room_id')
              .as('said'),
          (join) => join.onRef('said.room_id', '=', 'm.room_id').onRef('said.created', '=', 'm.created'),
        )
        .selectAll('m')
        .execute()

/**
 * Messages of the user's rooms changed (sent, changed or deleted) after `since`, oldest change
 * first. A message never changed since its send has its `created` no earlier than its `updated`:
 * those are found by `created`; deleted and changed (`revised`) ones by their own partial indexes
 * (migrations 0024, 0027).
 */
export const changedSince = (db: Kysely<Schema>, userID: string, since: number, limit: number) => {
  const ofUserRooms = () =>
    db
      .selectFrom('messages as m')
      .innerJoin('room_participants as p', 'p.room_id', 'm.room_id')
      .selectAll('m')
      .where('p.user_id', '=', userID)
      .where('m.updated', '>', since)
  return (
    ofUserRooms()
      .where('m.is_deleted', '=', sql.lit(0))
      .where('m.revised', '=', sql.lit(0))
      .where('m.created', '>', since)
      // A literal: a partial index serves only a condition known when the statement is planned.
      .unionAll(ofUserRooms().where('m.is_deleted', '=', sql.lit(1)))
      .unionAll(ofUserRooms().where('m.is_deleted', '=', sql.lit(0)).where('m.revised', '=', sql.lit(1)))
      .orderBy('updated')
      .orderBy('created')
      .limit(limit)
      .execute()
  )
}

/** Per room of these of the user's: messages from others after the user's read mark, not deleted. */
export const unreadCounts = (db: Kysely<Schema>, userID: string, roomIDs: readonly string[]) =>
  roomIDs.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('messages as m')
        .innerJoin('room_participants as p', 'p.room_id', 'm.room_id')
        .select(['m.room_id', (eb) => eb.fn.countAll<number>().as('unread')])
        .where('p.user_id', '=', userID)
        .where('m.room_id', 'in', roomIDs)
        .whereRef('m.created', '>', 'p.read_up_to')
        .where('m.sender_id', '<>', userID)
        .where('m.is_deleted', '=', 0)
        .groupBy('m.room_id')
        .execute()

/**
 * The newest messages of each of these rooms of the user's, as many as are unread there (as
 * unreadCounts counts them) and at most `perRoom`, in one query: they are all after the user's
 * read mark, since at least as many messages are.
 */
export const unreadTails = (
  db: Kysely<Schema>,
  query: { userID: string; roomIDs: readonly string[]; perRoom: number },
) =>
  query.roomIDs.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom(
          db
            .selectFrom('messages as m')
            .innerJoin('room_participants as p', 'p.room_id', 'm.room_id')
            .selectAll('m')
            .select([
              sql<number>`row_number() over (partition by m.room_id order by m.created desc)`.as('newest'),
              sql<number>`sum(case when m.sender_id <> ${query.userID} and m.is_deleted = 0 then 1 else 0 end) over (partition by m.room_id)`.as(
                'unread',
              ),
            ])
            .where('p.user_id', '=', query.userID)
            .whereRef('m.created', '>', 'p.read_up_to')
            .where('m.room_id', 'in', query.roomIDs)
            .as('t'),
        )
        .selectAll('t')
        .whereRef('t.newest', '<=', 't.unread')
        .where('t.newest', '<=', query.perRoom)
        .execute()

/**
 * Erases the messages' content, inside the caller's transaction: also from the search index and
 * the texts their edits replaced, and their rooms count a change (pages of them made before are
 * stale: page-cache.ts).
 */
export async function markDeleted(db: Kysely<Schema>, ids: readonly string[], now: number) {
  await db
    .updateTable('messages')
    .set({ is_deleted: 1, body: '', data: '{}', updated: now })
    .where('id', 'in', ids)
    .execute()
  await db
    .updateTable('rooms')
    .set((eb) => ({ message_changes: eb('message_changes', '+', 1) }))
    .where('id', 'in', (eb) => eb.selectFrom('messages').select('room_id').where('id', 'in', ids))
    .execute()
  await unindexMessages(db, ids)
  await db.deleteFrom('message_edits').where('message_id', 'in', ids).execute()
}

/**
 * Clears the quote of replies (in `roomIDs`) to these messages: the quoted words go with them.
 * The IDs of the replies changed.
 */
export const clearQuotesOf = async (
  db: Kysely<Schema>,
  roomIDs: readonly string[],
  ids: readonly string[],
  now: number,
) =>
  (
    await db
      .updateTable('messages')
      .set({ quote: JSON.stringify(NO_QUOTE), updated: now })
      .where('room_id', 'in', roomIDs)
      .where('reply_to', 'in', ids)
      .returning('id')
      .execute()
  ).map((row) => row.id)

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
