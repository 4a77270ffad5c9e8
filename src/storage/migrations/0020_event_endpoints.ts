import { type Kysely, sql } from 'kysely'

// Events to the customer's backend (docs/reference/events.md), through the same outbox as
// deliveries to chatbots:
// - `event_endpoints`: where an organization wants its events (URL, secret sealed like chatbots',
//   the event types as a JSON array), and whether it still gets them (`disabled_at` and why, once
//   it has failed for too long; `failing_since`: its first failed attempt since its last success).
// - `chatbots.events`: 1 when the chatbot also wants the events of what others did to its cases.
// - `deliveries` is rebuilt (SQLite cannot drop NOT NULL) so a row names its target (`target`:
//   chatbot | endpoint, with `chatbot_id` or `endpoint_id`), the key its order is kept within
//   (`ordering_key`: the case for chatbots, the endpoint for endpoints), and for events their type
//   and the body built in the change's transaction (`event_type`, `payload`); visitor messages to
//   chatbots keep `message_id` and are built when sent, as before.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('event_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('secret_key', 'text', (c) => c.notNull())
    .addColumn('event_types', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('failing_since', 'bigint')
    .addColumn('disabled_at', 'bigint')
    .addColumn('disabled_reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('event_endpoints_organization')
    .on('event_endpoints')
    .columns(['organization_id', 'active'])
    .execute()
  await db.schema
    .alterTable('chatbots')
    .addColumn('events', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()

  await db.schema
    .createTable('deliveries_v2')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('target', 'text', (c) => c.notNull()) // chatbot | endpoint
    .addColumn('ordering_key', 'text', (c) => c.notNull())
    .addColumn('case_id', 'text', (c) => c.references('cases.id'))
    .addColumn('chatbot_id', 'text', (c) => c.references('chatbots.id'))
    .addColumn('endpoint_id', 'text', (c) => c.references('event_endpoints.id'))
    .addColumn('message_id', 'text', (c) => c.references('messages.id'))
    .addColumn('event_type', 'text')
    .addColumn('payload', 'text')
    // Increasing within the ordering key (a message's `created`, an event's time; ties by id).
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // pending | sent | failed | abandoned
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint')
    .addColumn('last_error', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('sent_at', 'bigint')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute()
  await sql`insert into deliveries_v2 (id, target, ordering_key, case_id, chatbot_id, message_id, seq, status,
      attempts, next_attempt_at, lease_until, last_error, sent_at, created, updated)
    select id, 'chatbot', case_id, case_id, chatbot_id, message_id, seq, status, attempts, next_attempt_at,
      lease_until, last_error, sent_at, created, updated from deliveries`.execute(db)
  await db.schema.dropTable('deliveries').execute()
  await db.schema.alterTable('deliveries_v2').renameTo('deliveries').execute()
  // Only pending deliveries are ever searched: partial indexes stay as small as the backlog.
  const pending = sql<boolean>`status = 'pending'`
  await db.schema
    .createIndex('deliveries_due')
    .on('deliveries')
    .column('next_attempt_at')
    .where(pending)
    .execute()
  await db.schema
    .createIndex('deliveries_ordering')
    .on('deliveries')
    .columns(['ordering_key', 'seq'])
    .where(pending)
    .execute()
  await db.schema
    .createIndex('deliveries_case')
    .on('deliveries')
    .columns(['case_id'])
    .where(pending)
    .execute()
  // An endpoint's recent deliveries (the console), newest first.
  await db.schema
    .createIndex('deliveries_endpoint')
    .on('deliveries')
    .columns(['endpoint_id', 'created'])
    .execute()
}
