import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('ip_address', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('device_id', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('refreshed', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute()
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute()

  await db.schema
    .createTable('refresh_tokens')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id'))
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('rotated_at', 'bigint')
    .execute()

  await db.schema
    .createTable('rooms')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('image_url', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    // `created` of the room's newest message: the next one gets max(now, this + 1).
    .addColumn('last_message_created', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute()

  await db.schema
    .createTable('room_participants')
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('joined', 'bigint', (c) => c.notNull())
    // Receipts as high-water marks: every message up to this `created` is read / delivered.
    .addColumn('read_up_to', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('delivered_up_to', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('room_participants_pk', ['room_id', 'user_id'])
    .execute()
  await db.schema.createIndex('room_participants_user').on('room_participants').column('user_id').execute()

  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('room_id', 'text', (c) => c.notNull().references('rooms.id'))
    // A userID, or `agent:<id>`, `chatbot:<id>`, `system` for senders that are not end users.
    .addColumn('sender_id', 'text', (c) => c.notNull())
    .addColumn('local_id', 'text', (c) => c.notNull())
    .addColumn('type', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull()) // JSON object
    .addColumn('quote', 'text', (c) => c.notNull()) // JSON {title, content, imageURL}
    .addColumn('reply_to', 'text')
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .addColumn('is_deleted', 'integer', (c) => c.notNull().defaultTo(0))
    // A retried send (same sender, same localID, same room) finds the stored message instead of
    // adding one; (sender, localID) also serves the lookup of a retry.
    .addUniqueConstraint('messages_sender_local_id', ['sender_id', 'local_id', 'room_id'])
    .execute()
  await db.schema
    .createIndex('messages_room_created')
    .on('messages')
    .columns(['room_id', 'created'])
    .execute()
}
