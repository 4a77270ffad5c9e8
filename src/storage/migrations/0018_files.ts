import type { Kysely } from 'kysely'

// Uploaded files (their bytes are in the file store: the data directory or S3-compatible storage,
// under `<organizationID>/<fileID>`). A file belongs to who uploaded it until a message of theirs
// carries it; one never sent is swept after a day. Deleting the message deletes the bytes and
// keeps the row (`deleted_at`) for the record. An organization may narrow or widen the media types
// it takes (`file_types`, a JSON array; null: Parley's default list).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    // The sender it was uploaded by, as messages name senders: a userID, `agent:<id>`, `chatbot:<id>`.
    .addColumn('uploader_id', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('media_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('has_thumbnail', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('message_id', 'text')
    .addColumn('room_id', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute()
  // One message per file: a file sent twice would be deleted with either message.
  await db.schema.createIndex('files_message').on('files').column('message_id').unique().execute()
  // The sweep of files never sent, oldest first.
  await db.schema.createIndex('files_unsent').on('files').columns(['message_id', 'created']).execute()
  await db.schema
    .createIndex('files_organization')
    .on('files')
    .columns(['organization_id', 'deleted_at'])
    .execute()
  await db.schema.alterTable('organizations').addColumn('file_types', 'text').execute()
}
