import { type Kysely, sql } from 'kysely'

// Profiles (docs/reference/client-api.md#profiles): a bio, photos the user uploads (one of them the
// main photo, which the profile's imageURL shows), and a username unique in the organization.
// Usernames were not unique before: where several users of an organization had one username, the
// one made first keeps it and the others' is cleared (their backend sets it again, or another).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('bio', 'text', (c) => c.notNull().defaultTo(''))
    .execute()
  await keepFirstUsernames(db)
  await db.schema
    .createIndex('users_username')
    .on('users')
    .columns(['organization_id', 'username'])
    .unique()
    .where(sql.ref('username'), '<>', '')
    .execute()
  // A photo's bytes are a file (the file store, thumbnails, signed links) the photo carries.
  await db.schema
    .createTable('user_photos')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('file_id', 'text', (c) => c.notNull())
    .addColumn('is_main', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('user_photos_user').on('user_photos').columns(['user_id', 'created']).execute()
}

/** A username several users of an organization have stays with the one made first (then lower ID). */
export async function keepFirstUsernames(db: Kysely<unknown>): Promise<void> {
  await sql`update users set username = '' where username <> '' and exists (
      select 1 from users first where first.organization_id = users.organization_id
        and first.username = users.username
        and (first.created < users.created or (first.created = users.created and first.id < users.id)))`.execute(
    db,
  )
}
