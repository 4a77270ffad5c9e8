import type { Kysely } from 'kysely'

// Internal notes on a case (agents only: never a message of the case's room, so never seen by the
// visitor, a chatbot or the TapTalk layer), and the agents each note mentions, with whether they
// have read it. A note is idempotent on (its agent, localID).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('case_notes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('case_id', 'text', (c) => c.notNull().references('cases.id'))
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('agent_account_id', 'text', (c) => c.notNull().references('agent_accounts.id'))
    .addColumn('local_id', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    // The agentAccountIDs mentioned, a JSON array (also rows of note_mentions, for their unread lists).
    .addColumn('mentions', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('case_notes_agent_local')
    .on('case_notes')
    .columns(['agent_account_id', 'local_id'])
    .unique()
    .execute()
  await db.schema.createIndex('case_notes_case').on('case_notes').columns(['case_id', 'created']).execute()

  await db.schema
    .createTable('note_mentions')
    .addColumn('agent_account_id', 'text', (c) => c.notNull().references('agent_accounts.id'))
    .addColumn('note_id', 'text', (c) => c.notNull().references('case_notes.id'))
    .addColumn('case_id', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('read_at', 'bigint')
    .addPrimaryKeyConstraint('note_mentions_pk', ['agent_account_id', 'note_id'])
    .execute()
  await db.schema
    .createIndex('note_mentions_agent_created')
    .on('note_mentions')
    .columns(['agent_account_id', 'created'])
    .execute()
}
