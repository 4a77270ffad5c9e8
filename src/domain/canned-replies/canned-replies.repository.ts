import type { Insertable, Kysely, Updateable } from 'kysely'
import type { CannedRepliesTable, Schema } from '../../storage/schema.js'

// The canned replies module's queries: an organization's saved answers.

/** Stores a reply; fails with a unique violation when the organization has its shortcut. */
export const insertCannedReply = (db: Kysely<Schema>, row: Insertable<CannedRepliesTable>) =>
  db.insertInto('canned_replies').values(row).returningAll().executeTakeFirstOrThrow()

export const findCannedReply = (db: Kysely<Schema>, id: string) =>
  db.selectFrom('canned_replies').selectAll().where('id', '=', id).executeTakeFirst()

/** The organization's replies, by shortcut. */
export const cannedRepliesOf = (db: Kysely<Schema>, organizationID: string) =>
  db
    .selectFrom('canned_replies')
    .selectAll()
    .where('organization_id', '=', organizationID)
    .orderBy('shortcut')
    .execute()

/** Changes a reply; fails with a unique violation when another reply has the new shortcut. */
export const updateCannedReply = (db: Kysely<Schema>, id: string, changes: Updateable<CannedRepliesTable>) =>
  db.updateTable('canned_replies').set(changes).where('id', '=', id).returningAll().executeTakeFirst()

export const deleteCannedReply = (db: Kysely<Schema>, id: string) =>
  db.deleteFrom('canned_replies').where('id', '=', id).executeTakeFirst()
