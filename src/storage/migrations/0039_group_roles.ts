import { type Kysely, sql } from 'kysely'

// Group rooms have admins (docs/reference/client-api.md#group-roles): only they change the room,
// its members and its admins, or delete it. Rooms made before had no roles and let every member do
// all of that: their members all become admins, so nobody loses what they could do.
// A room may carry the customer's own ID (`xc_room_id`, unique in the organization when set), a
// photo uploaded to it (`photo_file_id`), and a deletion time (deleted rooms exist for nobody).
// Each participant may have cleared the chat up to a message (`cleared_up_to`: `created` of the
// last one hidden, for them only).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('room_participants')
    .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema
    .alterTable('room_participants')
    .addColumn('cleared_up_to', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema
    .alterTable('rooms')
    .addColumn('xc_room_id', 'text', (c) => c.notNull().defaultTo(''))
    .execute()
  await db.schema.alterTable('rooms').addColumn('photo_file_id', 'text').execute()
  await db.schema.alterTable('rooms').addColumn('deleted_at', 'bigint').execute()
  await db.schema
    .createIndex('rooms_xc_room_id')
    .on('rooms')
    .columns(['organization_id', 'xc_room_id'])
    .unique()
    .where(sql.ref('xc_room_id'), '<>', '')
    .execute()
  await everyMemberAdmin(db)
}

/** The group rooms' participants all become admins (rooms made before roles: each could do all). */
export async function everyMemberAdmin(db: Kysely<unknown>): Promise<void> {
  await sql`update room_participants set is_admin = 1
    where room_id in (select id from rooms where type = 2)`.execute(db)
}
