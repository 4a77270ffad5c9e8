import type { Database } from '../../storage/database.js'
import type { TicketsTable } from '../../storage/schema.js'
import type { UserProfile } from '../users/user.js'
import { upsertUser } from '../users/users.repository.js'

export type NewTicket = Omit<TicketsTable, 'user_id' | 'used_at'>

/**
 * Saves the user's profile (creating the user if need be) and stores the ticket for it; returns
 * the userID. On PostgreSQL this is one statement, one round trip: the user upsert is a CTE the
 * ticket insert reads from. SQLite has no data-modifying CTEs, but it is in-process, so two
 * statements in one transaction cost about the same.
 */
export async function upsertUserWithTicket(
  database: Database,
  user: { id: string; organizationID: string; profile: UserProfile; now: number },
  ticket: NewTicket,
): Promise<string> {
  if (database.dialect === 'postgres') {
    const row = await database.db
      .with('u', (db) => upsertUser(db, user).returning('id'))
      .insertInto('tickets')
      .values((eb) => ({ ...ticket, user_id: eb.selectFrom('u').select('u.id') }))
      .returning('user_id')
      .executeTakeFirstOrThrow()
    return row.user_id
  }
  return database.db.transaction().execute(async (trx) => {
    const { id } = await upsertUser(trx, user).returning('id').executeTakeFirstOrThrow()
    await trx
      .insertInto('tickets')
      .values({ ...ticket, user_id: id })
      .execute()
    return id
  })
}
