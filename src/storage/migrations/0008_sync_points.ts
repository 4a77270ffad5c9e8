import type { Kysely } from 'kysely'

// `new_and_updated` answers what changed in the caller's rooms since their session last synced:
// the session keeps that point (null: since the session began), and messages are found by when
// they last changed, room by room.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('synced_up_to', 'bigint').execute()
  await db.schema
    .createIndex('messages_room_updated')
    .on('messages')
    .columns(['room_id', 'updated'])
    .execute()
}
