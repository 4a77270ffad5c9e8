import { type Kysely, SqliteAdapter, sql } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter

  await db.schema
    .alterTable('organizations')
    .addColumn('max_open_cases', 'integer', (c) => c.notNull().defaultTo(1))
    .execute()

  // topicID is an integer (the webhook takes 3 and "3").
  await db.schema
    .createTable('topics')
    .addColumn('id', 'integer', (c) =>
      sqlite ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity(),
    )
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('topics_organization').on('topics').column('organization_id').execute()
  // Every organization has a default topic; those created before this migration get one now.
  await sql`insert into topics (organization_id, name, is_default, created, updated)
    select id, 'General', 1, created, created from organizations`.execute(db)

  await db.schema
    .createTable('chatbots')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret_key', 'text', (c) => c.notNull()) // AES-256-GCM with a key derived from the master key
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('chatbots_organization').on('chatbots').column('organization_id').execute()

  await db.schema
    .createTable('cases')
    .addColumn('id', 'text', (c) => c.primaryKey()) // 10 upper-case hex characters
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('topic_id', 'integer', (c) => c.notNull().references('topics.id'))
    .addColumn('status', 'text', (c) => c.notNull()) // bot | queued | assigned | closed
    .addColumn('chatbot_id', 'text')
    .addColumn('agent_account_id', 'text')
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id'))
    .addColumn('first_message', 'text', (c) => c.notNull())
    .addColumn('handover_summary', 'text', (c) => c.notNull().defaultTo('')) // for agents only
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .addColumn('closed_time', 'bigint')
    .addColumn('closed_by', 'text')
    .execute()
  await db.schema.createIndex('cases_user').on('cases').columns(['user_id', 'status']).execute()
  await db.schema
    .createIndex('cases_organization_status')
    .on('cases')
    .columns(['organization_id', 'status'])
    .execute()

  // The outbox of visitor messages to deliver to chatbots, written with the message.
  await db.schema
    .createTable('deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('case_id', 'text', (c) => c.notNull().references('cases.id'))
    .addColumn('chatbot_id', 'text', (c) => c.notNull().references('chatbots.id'))
    .addColumn('message_id', 'text', (c) => c.notNull().references('messages.id'))
    // The message's `created`: strictly increasing within the case, so it orders the case's deliveries.
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // pending | sent | failed | abandoned
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    // While an instance is sending it: others leave it alone until then (a crashed sender's lease lapses).
    .addColumn('lease_until', 'bigint')
    .addColumn('last_error', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('sent_at', 'bigint')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute()
  // Only pending deliveries are ever searched: partial indexes stay as small as the backlog.
  const pending = sql<boolean>`status = 'pending'`
  await db.schema
    .createIndex('deliveries_due')
    .on('deliveries')
    .column('next_attempt_at')
    .where(pending)
    .execute()
  await db.schema
    .createIndex('deliveries_case')
    .on('deliveries')
    .columns(['case_id', 'seq'])
    .where(pending)
    .execute()
}
