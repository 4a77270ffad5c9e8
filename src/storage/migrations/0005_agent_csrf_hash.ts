import { type Kysely, sql } from 'kysely'

// CSRF tokens were stored in plain text; now only their SHA-256 is. A stored token cannot be
// hashed into the new scheme (the console re-derives it from the session token, see
// agents.service), so sessions of before end here: agents sign in again.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('agent_sessions')
    .addColumn('csrf_token_hash', 'text', (c) => c.notNull().defaultTo(''))
    .execute()
  await sql`update agent_sessions set revoked_at = ${Date.now()} where revoked_at is null`.execute(db)
  await db.schema.alterTable('agent_sessions').dropColumn('csrf_token').execute()
}
