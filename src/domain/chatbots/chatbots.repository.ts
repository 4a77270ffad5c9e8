import type { Insertable, Kysely, Updateable } from 'kysely'
import { dialectOf } from '../../storage/prepared.js'
import type { ChatbotsTable, Schema } from '../../storage/schema.js'

export const insertChatbot = (db: Kysely<Schema>, row: Insertable<ChatbotsTable>) =>
  db.insertInto('chatbots').values(row).execute()

export const findChatbot = (db: Kysely<Schema>, id: string) =>
  db.selectFrom('chatbots').selectAll().where('id', '=', id).executeTakeFirst()

/** The organization's active chatbot; with `lock`, held (PostgreSQL) until the transaction ends. */
export const listChatbots = (db: Kysely<Schema>, organizationID: string) =>
  db
    .selectFrom('chatbots')
    .selectAll()
    .where('organization_id', '=', organizationID)
    // Oldest first: by time, as IDs of the two formats do not sort by it (lib/ids.ts).
    .orderBy('created')
    .orderBy('id')
    .execute()

/** The names of chatbots of the organization (who sent which message). */
export const chatbotNames = (db: Kysely<Schema>, organizationID: string, ids: readonly string[]) =>
  db
    .selectFrom('chatbots')
    .select(['id', 'name'])
    .where('organization_id', '=', organizationID)
    .where('id', 'in', ids)
    .execute()

export const findActiveChatbot = (db: Kysely<Schema>, organizationID: string, { lock = false } = {}) =>
  db
    .selectFrom('chatbots')
    .selectAll()
    .where('organization_id', '=', organizationID)
    .where('active', '=', 1)
    .$if(lock && dialectOf(db) === 'postgres', (q) => q.forShare())
    .executeTakeFirst()

export const updateChatbot = (
  db: Kysely<Schema>,
  id: string,
  changes: Partial<
    Pick<
      Updateable<ChatbotsTable>,
      'secret_key' | 'active' | 'name' | 'url' | 'events' | 'message_edits' | 'updated'
    >
  >,
) => db.updateTable('chatbots').set(changes).where('id', '=', id).execute()

/** Deactivates the organization's active chatbots other than `exceptID`; returns their IDs. */
export async function deactivateOthers(
  db: Kysely<Schema>,
  organizationID: string,
  exceptID: string,
  now: number,
) {
  const rows = await db
    .updateTable('chatbots')
    .set({ active: 0, updated: now })
    .where('organization_id', '=', organizationID)
    .where('active', '=', 1)
    .where('id', '<>', exceptID)
    .returning('id')
    .execute()
  return rows.map((row) => row.id)
}
