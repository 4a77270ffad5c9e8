import type { Insertable, Kysely, Selectable } from 'kysely'
import type { ModerationReportsTable, Schema } from '../../storage/schema.js'

export type ModerationReportRow = Selectable<ModerationReportsTable>

export const insertReport = (db: Kysely<Schema>, row: Insertable<ModerationReportsTable>) =>
  db.insertInto('moderation_reports').values(row).returningAll().executeTakeFirstOrThrow()

export const findReport = (db: Kysely<Schema>, id: string) =>
  db.selectFrom('moderation_reports').selectAll().where('id', '=', id).executeTakeFirst()

/** The organization's reports of a status, newest first, older than `beforeID` (paging). */
export const reportsPage = (
  db: Kysely<Schema>,
  page: { organizationID: string; status: 'open' | 'resolved'; beforeID: string | undefined; limit: number },
) =>
  db
    .selectFrom('moderation_reports')
    .selectAll()
    .where('organization_id', '=', page.organizationID)
    .where('status', '=', page.status)
    .$if(page.beforeID !== undefined, (q) => q.where('id', '<', page.beforeID as string))
    .orderBy('created', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .execute()

/** Resolves an open report; answers whether it was open. */
export const resolveReport = async (
  db: Kysely<Schema>,
  id: string,
  resolution: { resolution: string; resolvedBy: string | null; now: number },
) => {
  const result = await db
    .updateTable('moderation_reports')
    .set({
      status: 'resolved',
      resolution: resolution.resolution,
      resolved_by: resolution.resolvedBy,
      resolved_at: resolution.now,
      updated: resolution.now,
    })
    .where('id', '=', id)
    .where('status', '=', 'open')
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

/** Erasure: the words of the user's reports go; the reports stay (the admins' record). */
export async function eraseReportsBy(db: Kysely<Schema>, reporterID: string): Promise<void> {
  await db
    .updateTable('moderation_reports')
    .set({ reason: '' })
    .where('reporter_id', '=', reporterID)
    .execute()
}
