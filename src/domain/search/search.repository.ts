import { type Kysely, type QueryCreator, sql } from 'kysely'
import { dialectOf, prepareQuery } from '../../storage/prepared.js'
import type { Schema } from '../../storage/schema.js'

// The full-text index of message words (migration 0012): SQLite FTS5 (rowid = message ID, columns
// `words` and `room`) or a PostgreSQL table with a GIN-indexed tsvector. Written only here, by the
// commit that stores or deletes the message (store-message.ts, messages.repository.ts).

/** SQLite: indexes a message just stored, inside the storing transaction. */
export async function indexMessage(
  db: Kysely<Schema>,
  message: { id: string; roomID: string; words: string },
) {
  await indexOne.run(db, message)
}

/** The FTS5 table as SQLite's inserts see it. */
interface SearchSchema {
  message_search: { rowid: unknown; words: string; room: string }
}

const indexOne = prepareQuery(
  'search.indexMessage',
  (db, message: { id: string; roomID: string; words: string }) =>
    (db as unknown as QueryCreator<SearchSchema>)
      .insertInto('message_search')
      .values({ rowid: rowid(message.id), words: message.words, room: message.roomID }),
  { dialect: 'sqlite' },
)

/** The index's table on PostgreSQL, and a CTE `stored` of messages just inserted. */
interface IndexingSchema {
  message_search: { message_id: unknown; room_id: string; words: unknown }
  stored: { id: string; room_id: string }
}

/** PostgreSQL: indexes the message that the statement's `stored` (a CTE) inserted, if any. */
export const indexStoredMessage = (qb: QueryCreator<never>, words: string) =>
  (qb as unknown as QueryCreator<IndexingSchema>)
    .insertInto('message_search')
    .columns(['message_id', 'room_id', 'words'])
    .expression((eb) =>
      // message_id is a bigint there (a message ID is digits).
      eb
        .selectFrom('stored')
        .select([
          sql`id::bigint`.as('message_id'),
          'room_id',
          sql`to_tsvector('simple', ${words})`.as('words'),
        ]),
    )

/**
 * A message ID as the FTS5 rowid, converted by SQLite: exact for every ID, also the 18-digit ones
 * issued before IDs fit in 2^53 (a JavaScript number would round them).
 */
const rowid = (messageID: string) => sql`cast(${messageID} as integer)`

/** Takes deleted messages out of the index, inside the deleting transaction. */
export async function unindexMessages(db: Kysely<Schema>, ids: readonly string[]) {
  if (ids.length === 0) return
  await (dialectOf(db) === 'sqlite'
    ? sql`delete from message_search where rowid in (${sql.join(ids.map(rowid))})`
    : sql`delete from message_search where message_id in (${sql.join(ids)})`
  ).execute(db)
}

/**
 * An edited message's new words, inside the editing transaction: only if it was indexed (SQLite's
 * contentless table takes no update: its row is replaced).
 */
export async function reindexMessage(
  db: Kysely<Schema>,
  message: { id: string; roomID: string; words: string },
) {
  if (dialectOf(db) === 'postgres') {
    await sql`update message_search set words = to_tsvector('simple', ${message.words})
      where message_id = ${message.id}`.execute(db)
    return
  }
  const found = await sql`select rowid from message_search where rowid = ${rowid(message.id)}`.execute(db)
  if (found.rows.length === 0) return
  await unindexMessages(db, [message.id])
  await indexMessage(db, message)
}

/** An FTS5 string: always a phrase, never syntax (`"` doubled). */
const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`

/** The FTS5 query of messages holding every one of `words`, optionally in one of `roomIDs`. */
function ftsQuery(words: readonly string[], roomIDs?: readonly string[]): string {
  const holding = `words : (${words.map(quoted).join(' AND ')})`
  return roomIDs ? `room : (${roomIDs.map(quoted).join(' OR ')}) AND ${holding}` : holding
}

/** Space-separated words, which plainto_tsquery reads as every one of them (the same cut as indexed). */
const tsQuery = (words: readonly string[]) => sql`plainto_tsquery('simple', ${words.join(' ')})`

/**
 * Rooms of messages holding every one of `words`, from at most `cap` such messages (any of them):
 * `complete` when there are no more.
 */
export async function roomsOfMatches(db: Kysely<Schema>, words: readonly string[], cap: number) {
  const { rows } = await (dialectOf(db) === 'sqlite'
    ? sql<{ room_id: string }>`select room_id from messages where id in
        (select cast(rowid as text) from message_search where message_search match ${ftsQuery(words)}
         limit ${cap + 1})`
    : sql<{ room_id: string }>`select room_id from message_search where words @@ ${tsQuery(words)}
        limit ${cap + 1}`
  ).execute(db)
  return { roomIDs: [...new Set(rows.map((row) => row.room_id))], complete: rows.length <= cap }
}

/**
 * The newest message (by `created`) holding every one of `words` in each of these rooms (those that
 * have one), its ID as text: exact for every ID, and IDs do not order by time across the change to
 * 53-bit IDs (old ones are larger).
 */
export async function newestMatches(
  db: Kysely<Schema>,
  roomIDs: readonly string[],
  words: readonly string[],
): Promise<Map<string, string>> {
  if (roomIDs.length === 0) return new Map()
  const { rows } = await (dialectOf(db) === 'sqlite'
    ? // SQLite takes a bare column from the row that holds the max().
      sql<{ room_id: string; id: string }>`select room_id, id, max(created) from messages
        where id in (select cast(rowid as text) from message_search
          where message_search match ${ftsQuery(words, roomIDs)})
        group by room_id`
    : sql<{ room_id: string; id: string }>`select distinct on (s.room_id) s.room_id, m.id
        from message_search s join messages m on m.id = s.message_id::text
        where s.room_id in (${sql.join(roomIDs)}) and s.words @@ ${tsQuery(words)}
        order by s.room_id, m.created desc`
  ).execute(db)
  return new Map(rows.map((row) => [row.room_id, row.id]))
}
