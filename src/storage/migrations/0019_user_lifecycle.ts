import type { Kysely } from 'kysely'

// The customer's backend ends users' access (server API): a deactivated user's sessions are revoked
// and no ticket is issued for them until reactivated; a deleted user (erasure) keeps a blank row,
// so the messages and cases that name them still read, and their xcUserID is freed.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('deactivated_at', 'bigint').execute()
  await db.schema.alterTable('users').addColumn('deleted_at', 'bigint').execute()
}
