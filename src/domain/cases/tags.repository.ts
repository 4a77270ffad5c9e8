import type { Kysely } from 'kysely'
import type { Schema } from '../../storage/schema.js'

// The tags (labels) on cases: the case_tags table, written only by CaseTags (case-tags.ts).

/** The tags of these cases, each case's in alphabetical order. */
export const tagsOfCases = (db: Kysely<Schema>, caseIDs: readonly string[]) =>
  caseIDs.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('case_tags')
        .select(['case_id', 'tag'])
        .where('case_id', 'in', caseIDs)
        .orderBy('case_id')
        .orderBy('tag')
        .execute()

/** The case's tags become these (already checked and normalised). */
export async function replaceTags(
  db: Kysely<Schema>,
  row: { caseID: string; organizationID: string },
  tags: readonly string[],
): Promise<void> {
  await db.deleteFrom('case_tags').where('case_id', '=', row.caseID).execute()
  if (tags.length === 0) return
  await db
    .insertInto('case_tags')
    .values(tags.map((tag) => ({ case_id: row.caseID, organization_id: row.organizationID, tag })))
    .execute()
}

/** The organization's tags in use, each with how many cases have it: the most used first. */
export const tagCounts = (db: Kysely<Schema>, organizationID: string) =>
  db
    .selectFrom('case_tags')
    .select((eb) => ['tag', eb.fn.countAll<number | string>().as('cases')])
    .where('organization_id', '=', organizationID)
    .groupBy('tag')
    .orderBy('cases', 'desc')
    .orderBy('tag')
    .execute()
