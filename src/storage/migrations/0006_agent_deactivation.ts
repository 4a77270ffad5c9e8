import { type Kysely, sql } from 'kysely'

// Agents who leave are deactivated, not deleted: their cases, messages and audit entries keep
// naming them. The same release writes audit entries for changes made at the admin CLI, which has
// no agent account: `actor` names who made a change (`agent:<id>` or `cli:<OS user>`).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agent_accounts').addColumn('deactivated_at', 'bigint').execute()
  await db.schema
    .alterTable('audit_log')
    .addColumn('actor', 'text', (c) => c.notNull().defaultTo(''))
    .execute()
  await sql`update audit_log set actor = 'agent:' || agent_account_id`.execute(db)
}
