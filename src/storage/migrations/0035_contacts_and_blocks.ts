import type { Kysely } from 'kysely'

// A user's contacts and the users they blocked (docs/reference/client-api.md, "Contacts" and
// "Blocking"): private to the user, one row per pair. A send checks whether its recipient blocked
// its sender, by the blocked user's index. Users are found by the phone their backend gave.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('contacts')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('contact_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('contacts_pk', ['user_id', 'contact_id'])
    .execute()
  await db.schema
    .createTable('user_blocks')
    .addColumn('blocker_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('blocked_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_blocks_pk', ['blocker_id', 'blocked_id'])
    .execute()
  await db.schema
    .createIndex('user_blocks_blocked')
    .on('user_blocks')
    .columns(['blocked_id', 'blocker_id'])
    .execute()
  await db.schema
    .createIndex('users_organization_phone')
    .on('users')
    .columns(['organization_id', 'phone'])
    .execute()
}
