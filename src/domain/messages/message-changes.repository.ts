import type { Kysely } from 'kysely'
import { countRows } from '../../storage/count.js'
import type { Schema } from '../../storage/schema.js'

// The queries of what changes a message after its send (migration 0027): edits, reactions,
// threads, pins and stars, and the organization's edit settings.

/**
 * Marks the message changed now and answers it as it is, locked: the first statement of each change
 * of a message, so that changes of one message run one after another on PostgreSQL (SQLite runs
 * every transaction alone). Its room counts a change (pages made before are stale: page-cache.ts),
 * which also locks the room's row until the commit: a room's changes run one after another, and
 * what one checks of the room (its pins' count) the next finds committed.
 */
export async function reviseMessage(trx: Kysely<Schema>, id: string, now: number) {
  const row = await trx
    .updateTable('messages')
    .set({ updated: now, revised: 1 })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()
  if (row)
    await trx
      .updateTable('rooms')
      .set((eb) => ({ message_changes: eb('message_changes', '+', 1) }))
      .where('id', '=', row.room_id)
      .execute()
  return row
}

export const setContent = (
  trx: Kysely<Schema>,
  id: string,
  content: { body: string; data: string; edited: number },
) => trx.updateTable('messages').set(content).where('id', '=', id).execute()

export const keepOriginal = (
  trx: Kysely<Schema>,
  original: { id: string; message_id: string; replaced: number; body: string; data: string },
) => trx.insertInto('message_edits').values(original).execute()

export const originalCount = (db: Kysely<Schema>, messageID: string) =>
  countRows(db.selectFrom('message_edits').where('message_id', '=', messageID))

/** The texts edits replaced, oldest first. */
export const originalsOf = (db: Kysely<Schema>, messageID: string) =>
  db
    .selectFrom('message_edits')
    .select(['replaced', 'body', 'data'])
    .where('message_id', '=', messageID)
    .orderBy('replaced')
    .orderBy('id')
    .execute()

export const setReactions = (trx: Kysely<Schema>, id: string, reactions: string) =>
  trx.updateTable('messages').set({ reactions }).where('id', '=', id).execute()

/** A reply joins its thread: the reply names it, its first message counts one more reply. */
/** The messages a user's reaction is on (erasure), found by their ID in the reactions' JSON. */
export const reactedBy = (db: Kysely<Schema>, userID: string) =>
  db
    .selectFrom('messages')
    .select(['id', 'reactions'])
    .where('reactions', 'like', `%${JSON.stringify(userID)}%`)
    .execute()

/** Erasure: the user's stars. */
export const deleteStarsOf = (db: Kysely<Schema>, userID: string) =>
  db.deleteFrom('message_stars').where('user_id', '=', userID).execute()

export async function joinThread(trx: Kysely<Schema>, replyID: string, threadID: string) {
  await trx.updateTable('messages').set({ thread_id: threadID }).where('id', '=', replyID).execute()
  await trx
    .updateTable('messages')
    .set((eb) => ({ reply_count: eb('reply_count', '+', 1) }))
    .where('id', '=', threadID)
    .execute()
}

/** A page of a thread's replies beyond `bound`: `before` it newest first, or `after` it oldest first. */
export const threadPage = (
  db: Kysely<Schema>,
  page: { threadID: string; direction: 'before' | 'after'; bound: number; limit: number },
) =>
  db
    .selectFrom('messages')
    .selectAll()
    .where('thread_id', '=', page.threadID)
    .where('created', page.direction === 'before' ? '<' : '>', page.bound)
    .orderBy('created', page.direction === 'before' ? 'desc' : 'asc')
    .limit(page.limit)
    .execute()

export const setPinned = (trx: Kysely<Schema>, id: string, pinned: boolean) =>
  trx
    .updateTable('messages')
    .set({ is_pinned: pinned ? 1 : 0 })
    .where('id', '=', id)
    .execute()

export const addPin = (
  trx: Kysely<Schema>,
  pin: { room_id: string; message_id: string; pinned_by: string; created: number },
) =>
  trx
    .insertInto('room_pins')
    .values(pin)
    .onConflict((c) => c.doNothing())
    .execute()

export const removePin = (trx: Kysely<Schema>, roomID: string, messageID: string) =>
  trx.deleteFrom('room_pins').where('room_id', '=', roomID).where('message_id', '=', messageID).execute()

export const pinCount = (db: Kysely<Schema>, roomID: string) =>
  countRows(db.selectFrom('room_pins').where('room_id', '=', roomID))

/** The room's pinned messages, most recently pinned first. */
export const pinnedOf = (db: Kysely<Schema>, roomID: string, page: { limit: number; offset: number }) =>
  db
    .selectFrom('room_pins as p')
    .innerJoin('messages as m', 'm.id', 'p.message_id')
    .selectAll('m')
    .where('p.room_id', '=', roomID)
    .orderBy('p.created', 'desc')
    .orderBy('p.message_id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute()

export const star = (
  trx: Kysely<Schema>,
  stars: { user_id: string; message_id: string; room_id: string; created: number }[],
) =>
  stars.length === 0
    ? Promise.resolve()
    : trx
        .insertInto('message_stars')
        .values(stars)
        .onConflict((c) => c.doNothing())
        .execute()

export const unstar = (trx: Kysely<Schema>, userID: string, messageIDs: readonly string[]) =>
  trx
    .deleteFrom('message_stars')
    .where('user_id', '=', userID)
    .where('message_id', 'in', messageIDs)
    .execute()

export const starCount = (db: Kysely<Schema>, userID: string) =>
  countRows(db.selectFrom('message_stars').where('user_id', '=', userID))

/**
 * The user's starred messages, most recently starred first: in one room, or in every room the user
 * is in now.
 */
export const starredOf = (
  db: Kysely<Schema>,
  query: { userID: string; roomID?: string | undefined; limit: number; offset: number },
) =>
  db
    .selectFrom('message_stars as s')
    .innerJoin('messages as m', 'm.id', 's.message_id')
    .innerJoin('room_participants as p', (join) =>
      join.onRef('p.room_id', '=', 's.room_id').onRef('p.user_id', '=', 's.user_id'),
    )
    .selectAll('m')
    .where('s.user_id', '=', query.userID)
    .$if(query.roomID !== undefined, (q) => q.where('s.room_id', '=', query.roomID as string))
    .orderBy('s.created', 'desc')
    .orderBy('s.message_id', 'desc')
    .limit(query.limit)
    .offset(query.offset)
    .execute()

export const messageSettingsOf = (db: Kysely<Schema>, organizationID: string) =>
  db
    .selectFrom('organizations')
    .select(['message_edit_window_s', 'keep_edited_originals'])
    .where('id', '=', organizationID)
    .executeTakeFirst()

export const setMessageSettings = (
  trx: Kysely<Schema>,
  organizationID: string,
  settings: { message_edit_window_s: number; keep_edited_originals: number },
) => trx.updateTable('organizations').set(settings).where('id', '=', organizationID).execute()
