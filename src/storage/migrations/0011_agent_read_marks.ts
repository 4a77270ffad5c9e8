import type { Kysely } from 'kysely'

// Read marks of a case's agents: in a case's room, the visitor's messages are read once the
// case's agent has read up to them (the agents are not participants of the room, so their mark is
// the room's own). The case of a room is found by its room (typing and read marks of a case room).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('rooms')
    .addColumn('agents_read_up_to', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema.createIndex('cases_room').on('cases').column('room_id').execute()
}
