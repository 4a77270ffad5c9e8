import type { Kysely } from 'kysely'

// Tags (labels) on cases: an organization's own words, stored lower case (so "VIP" and "vip" are
// one tag), at most 10 per case. The organization is repeated here so that the tags in use and the
// cases holding a tag are found through one index, without reading the cases.
// Reopening a closed case needs no new column: it clears closed_time and closed_by.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('case_tags')
    .addColumn('case_id', 'text', (c) => c.notNull().references('cases.id'))
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('tag', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('case_tags_pk', ['case_id', 'tag'])
    .execute()
  await db.schema
    .createIndex('case_tags_organization_tag')
    .on('case_tags')
    .columns(['organization_id', 'tag', 'case_id'])
    .execute()
}
