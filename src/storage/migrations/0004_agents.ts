import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('agent_accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('email', 'text', (c) => c.notNull().unique()) // lower-cased; one account per address
    .addColumn('full_name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull()) // admin | agent
    .addColumn('password_hash', 'text', (c) => c.notNull()) // scrypt
    .addColumn('max_concurrent_cases', 'integer', (c) => c.notNull().defaultTo(5))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('offline')) // online | away | offline
    .addColumn('last_assigned', 'bigint', (c) => c.notNull().defaultTo(0)) // for "longest idle"
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('agent_accounts_organization')
    .on('agent_accounts')
    .column('organization_id')
    .execute()

  await db.schema
    .createTable('agent_topics')
    .addColumn('agent_account_id', 'text', (c) => c.notNull().references('agent_accounts.id'))
    .addColumn('topic_id', 'integer', (c) => c.notNull().references('topics.id'))
    .addPrimaryKeyConstraint('agent_topics_pk', ['agent_account_id', 'topic_id'])
    .execute()

  await db.schema
    .createTable('agent_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('agent_account_id', 'text', (c) => c.notNull().references('agent_accounts.id'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute()

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('agent_account_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull()) // JSON, never a secret
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('audit_log_organization')
    .on('audit_log')
    .columns(['organization_id', 'created'])
    .execute()
}
