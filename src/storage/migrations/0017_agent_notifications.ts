import type { Kysely } from 'kysely'

// Each agent's choice of how the console tells them of a case that comes to them or a visitor's
// message while its tab is hidden: a sound (on unless turned off) and a desktop notification (off
// until they turn it on, since the browser must ask their permission first). 1 is on, 0 off.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('agent_accounts')
    .addColumn('notify_sound', 'integer', (c) => c.notNull().defaultTo(1))
    .execute()
  await db.schema
    .alterTable('agent_accounts')
    .addColumn('notify_desktop', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
}
