import { type Kysely, sql } from 'kysely'

// What people do with messages besides sending and deleting them (docs/reference/client-api.md):
// - edits: `edited` (epoch ms of the last edit, 0: never), and, where the organization keeps them,
//   each replaced text in message_edits; the organization's edit window and that choice;
// - reactions: `reactions`, the message's [{emoji, count, userIDs}] as JSON, changed under the
//   message row's lock (a summary every view of the message shows without another query);
// - threads: a reply's `thread_id` (its thread's first message), the first message's `reply_count`;
// - pins: the room's pinned messages (room_pins) and the message's `is_pinned`;
// - stars: each user's starred messages (message_stars), private.
// `revised` is 1 once a message changed other than by its send or its delete: new_and_updated
// finds those by the partial index below, as it finds deleted ones (migration 0024).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('organizations')
    .addColumn('message_edit_window_s', 'integer', (c) => c.notNull().defaultTo(900))
    .execute()
  await db.schema
    .alterTable('organizations')
    .addColumn('keep_edited_originals', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  for (const [name, type, fallback] of [
    ['edited', 'bigint', 0],
    ['reactions', 'text', '[]'],
    ['reply_count', 'integer', 0],
    ['is_pinned', 'integer', 0],
    ['revised', 'integer', 0],
  ] as const)
    await db.schema
      .alterTable('messages')
      .addColumn(name, type, (c) => c.notNull().defaultTo(fallback))
      .execute()
  await db.schema.alterTable('messages').addColumn('thread_id', 'text').execute()
  await db.schema
    .createIndex('messages_room_revised')
    .on('messages')
    .columns(['room_id', 'updated'])
    .where(sql.ref('revised'), '=', 1)
    .execute()
  await db.schema
    .createIndex('messages_thread')
    .on('messages')
    .columns(['thread_id', 'created'])
    .where(sql.ref('thread_id'), 'is not', null)
    .execute()
  await db.schema
    .createTable('message_edits')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('replaced', 'bigint', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('message_edits_message')
    .on('message_edits')
    .columns(['message_id', 'replaced'])
    .execute()
  await db.schema
    .createTable('room_pins')
    .addColumn('room_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('pinned_by', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('room_pins_pk', ['room_id', 'message_id'])
    .execute()
  await db.schema
    .createTable('message_stars')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('room_id', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('message_stars_pk', ['user_id', 'message_id'])
    .execute()
  await db.schema
    .createIndex('message_stars_user_created')
    .on('message_stars')
    .columns(['user_id', 'created'])
    .execute()
}
