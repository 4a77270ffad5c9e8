import type { Kysely } from 'kysely'

// What each user keeps of a room for themselves (docs/reference/client-api.md, "Your rooms'
// state"): muted (until when; 0 until unmuted), pinned (since when), marked as unread. One row per
// user and room, written only when the user changes one of them.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('room_states')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id'))
    .addColumn('muted_until', 'bigint')
    .addColumn('pinned_at', 'bigint')
    .addColumn('marked_unread', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('room_states_pk', ['user_id', 'room_id'])
    .execute()
  // message.new asks which of a room's recipients muted it.
  await db.schema.createIndex('room_states_room').on('room_states').columns(['room_id', 'user_id']).execute()
}
