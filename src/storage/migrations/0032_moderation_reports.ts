import type { Kysely } from 'kysely'

// Moderation reports (docs/reference/client-api.md#reporting-a-message-or-a-user): a user reports a
// message (`message_id`, its room and sender) or a user, with a category and a reason; the
// organization's admins resolve each one in the console (`resolution`: resolved, message_deleted or
// user_deactivated; who and when).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('moderation_reports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('reporter_id', 'text', (c) => c.notNull())
    .addColumn('reported_user_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('room_id', 'text')
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // open | resolved
    .addColumn('resolution', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('resolved_by', 'text')
    .addColumn('resolved_at', 'bigint')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('moderation_reports_queue')
    .on('moderation_reports')
    .columns(['organization_id', 'status', 'created'])
    .execute()
}
