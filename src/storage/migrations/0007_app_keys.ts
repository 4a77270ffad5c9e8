import type { Kysely } from 'kysely'

// App keys identify a client app of an organization (the TapTalk.io SDKs' `App-Key` header):
// a key pair like a server key, in a table of its own (the same columns).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('app_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute()
  await db.schema.createIndex('app_keys_organization').on('app_keys').column('organization_id').execute()
}
