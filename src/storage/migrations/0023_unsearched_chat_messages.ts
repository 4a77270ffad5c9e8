import { type Kysely, SqliteAdapter, sql } from 'kysely'

// Only cases' messages are searched (the agents' case search), so chat rooms' messages are no
// longer indexed as they are stored: their entries from before go too, or the search would keep
// finding (and stepping over) matches that can belong to no case. Rooms of type 3 are cases'.
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    // FTS5 deletes by rowid; SQLite converts the ID exactly, also for 18-digit IDs.
    await sql`delete from message_search where rowid in (select cast(m.id as integer) from messages m
      join rooms r on r.id = m.room_id where r.type <> 3)`.execute(db)
  } else {
    await sql`delete from message_search s using rooms r where r.id = s.room_id and r.type <> 3`.execute(db)
  }
}
