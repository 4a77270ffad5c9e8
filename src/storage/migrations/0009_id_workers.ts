import type { Kysely } from 'kysely'

// IDs fit in 53 bits, so their worker number (6 bits) is leased from the database rather than drawn
// at random (lib/ids.ts, storage/id-workers.ts): one row per worker number ever leased, never
// deleted. `floor` is where the current holder's IDs begin: its previous holder's `expires`.
// (0009: 0008 is taken by another change.)
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('id_workers')
    .addColumn('worker', 'integer', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires', 'bigint', (c) => c.notNull())
    .addColumn('floor', 'bigint', (c) => c.notNull())
    .execute()
}
