import type { Kysely } from 'kysely'

// Canned replies: an organization's saved answers, which agents insert in the reply box with a
// `/shortcut` (docs/reference/agent-api.md, "Canned replies"). A shortcut is unique in its organization: the index, not
// a look before the insert, decides between two admins creating the same one at once.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('canned_replies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('shortcut', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('canned_replies_organization_shortcut')
    .on('canned_replies')
    .columns(['organization_id', 'shortcut'])
    .unique()
    .execute()
}
