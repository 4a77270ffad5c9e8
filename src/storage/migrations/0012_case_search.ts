import { type Kysely, SqliteAdapter, sql } from 'kysely'
import { indexedText } from '../../lib/search-words.js'

// The case search (docs/reference/agent-api.md, "Searching cases"): a full-text index of the words of messages, in each
// database's own full-text search, kept in step by the transaction that stores (or deletes) a
// message. The words are cut by lib/search-words.ts, not by the database, so both index the same.
// - SQLite: an FTS5 table without content of its own (contentless, deletable rows): rowid = the
//   message's ID, `words` its words, `room` its room's ID (so a room's matches are found in the
//   index itself).
// - PostgreSQL: a table of the words as a tsvector (the `simple` configuration: the words as they
//   are) with a GIN index, and the room.
// System messages (9001) are not indexed: nobody said them. Also an index of an organization's
// cases newest first, for search results and filters.
export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter
  if (sqlite) {
    await sql`create virtual table message_search using fts5(words, room, content='', contentless_delete=1,
      tokenize="unicode61 remove_diacritics 0 categories 'L* N* M* Co'")`.execute(db)
  } else {
    await sql`create table message_search (message_id bigint primary key, room_id text not null,
      words tsvector not null)`.execute(db)
    await sql`create index message_search_words on message_search using gin (words)`.execute(db)
    await sql`create index message_search_room on message_search (room_id)`.execute(db)
  }
  await db.schema
    .createIndex('cases_organization_created')
    .on('cases')
    .columns(['organization_id', 'created'])
    .execute()
  await backfill(db, sqlite)
}

const BATCH = 5000

/** Indexes the messages stored before this migration, a batch at a time. */
async function backfill(db: Kysely<unknown>, sqlite: boolean): Promise<void> {
  let after = ''
  for (;;) {
    const { rows } = await sql<{ id: string; room_id: string; body: string }>`select id, room_id, body
      from messages where id > ${after} and is_deleted = 0 and type <> 9001 order by id limit ${BATCH}`.execute(
      db,
    )
    const last = rows.at(-1)
    if (!last) return
    after = last.id
    const indexed = rows.map((row) => ({ ...row, words: indexedText(row.body) })).filter((row) => row.words)
    if (indexed.length === 0) continue
    const values = indexed.map((row) =>
      sqlite
        ? // SQLite converts the ID: exact also for 18-digit IDs, which a JavaScript number rounds.
          sql`(cast(${row.id} as integer), ${row.words}, ${row.room_id})`
        : sql`(${row.id}, ${row.room_id}, to_tsvector('simple', ${row.words}))`,
    )
    await (sqlite
      ? sql`insert into message_search (rowid, words, room) values ${sql.join(values)}`
      : sql`insert into message_search (message_id, room_id, words) values ${sql.join(values)}`
    ).execute(db)
  }
}
