import type { Kysely } from 'kysely'

// `chatbots.message_edits`: 1 when the chatbot wants `message.updated` for the messages of the
// cases it has (docs/reference/chatbot-webhook.md#edits); off for every chatbot until asked.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('chatbots')
    .addColumn('message_edits', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
}
