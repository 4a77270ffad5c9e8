import type { Kysely } from 'kysely'

// Scheduled messages (docs/reference/client-api.md#scheduled-messages): what a user will send to a
// room at `scheduled_time`, until it is sent (`message_id`), cancelled, or dropped (its sender was
// deactivated, deleted or left the room). `lease_until` marks one being sent by an instance, as the
// delivery outbox's leases do, so that several instances share the due ones and a crashed
// instance's lapse. A create is idempotent on (sender, local_id, room), like a send.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scheduled_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('room_id', 'text', (c) => c.notNull())
    .addColumn('sender_id', 'text', (c) => c.notNull())
    .addColumn('local_id', 'text', (c) => c.notNull())
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('quote', 'text', (c) => c.notNull())
    .addColumn('reply_to', 'text')
    .addColumn('scheduled_time', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // pending | sent | cancelled | dropped
    .addColumn('lease_until', 'bigint')
    .addColumn('message_id', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('scheduled_messages_sender_local_id', ['sender_id', 'local_id', 'room_id'])
    .execute()
  await db.schema
    .createIndex('scheduled_messages_due')
    .on('scheduled_messages')
    .columns(['status', 'scheduled_time'])
    .execute()
}
