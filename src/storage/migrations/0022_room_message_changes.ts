import type { Kysely } from 'kysely'

// How many times a message of the room changed after it was stored (a delete erases it): with
// last_message_created, which every new message moves, it tells whether any message of the room
// is other than when a history page of it was made (the page cache, domain/messages/page-cache.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('rooms')
    .addColumn('message_changes', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
}
