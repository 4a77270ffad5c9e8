import type { Kysely } from 'kysely'

// A visitor rates a closed case: 1–5 and an optional note, stored on the case; rating it again
// replaces the earlier rating. All three are null until the case is rated.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite adds one column at a time.
  await db.schema.alterTable('cases').addColumn('rating', 'integer').execute()
  await db.schema.alterTable('cases').addColumn('rating_note', 'text').execute()
  await db.schema.alterTable('cases').addColumn('rated_at', 'bigint').execute()
}
