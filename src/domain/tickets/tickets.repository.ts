import type { Kysely } from 'kysely'
import { prepareQuery } from '../../storage/prepared.js'
import type { Dialect, Schema, TicketsTable } from '../../storage/schema.js'
import { EVERY_COLUMN_GIVEN, givenColumns, type UserUpsert, upsertUser } from '../users/users.repository.js'

export type NewTicket = Omit<TicketsTable, 'user_id' | 'used_at'>

type Args = UserUpsert & NewTicket

const ticketValues = (t: NewTicket) => ({
  hash: t.hash,
  organization_id: t.organization_id,
  ip_address: t.ip_address,
  user_agent: t.user_agent,
  platform: t.platform,
  device_id: t.device_id,
  created: t.created,
  expires_at: t.expires_at,
})

/** The user upsert's shapes `npm run sql` lists: no optional column given, and every one. */
const LISTED_SHAPES = ['', EVERY_COLUMN_GIVEN]

// PostgreSQL: one statement, one round trip: the user upsert is a CTE the ticket insert reads.
const upsertUserWithTicketPostgres = prepareQuery(
  'tickets.upsertUserWithTicketPostgres',
  (db, args: Args, given) =>
    db
      .with('u', (q) => upsertUser(q, args, given).returning('id'))
      .insertInto('tickets')
      .values((eb) => ({ ...ticketValues(args), user_id: eb.selectFrom('u').select('u.id') }))
      .returning('user_id'),
  { shapeOf: givenColumns, shapes: LISTED_SHAPES, dialect: 'postgres' },
)

// SQLite has no data-modifying CTEs; it is in-process, so two statements in one transaction.
const upsertUserSqlite = prepareQuery(
  'tickets.upsertUserSqlite',
  (db, args: UserUpsert, given) => upsertUser(db, args, given).returning('id'),
  { shapeOf: givenColumns, shapes: LISTED_SHAPES, dialect: 'sqlite' },
)
const insertTicketSqlite = prepareQuery(
  'tickets.insertTicketSqlite',
  (db, args: NewTicket & { userID: string }) =>
    db.insertInto('tickets').values({ ...ticketValues(args), user_id: args.userID }),
  { dialect: 'sqlite' },
)

/**
 * Saves the user's profile (creating the user if need be), stores the ticket; returns the userID.
 * Run in a transaction (`db`), so what is recorded with a new user commits with it.
 */
export async function upsertUserWithTicket(
  db: Kysely<Schema>,
  dialect: Dialect,
  user: UserUpsert,
  ticket: NewTicket,
): Promise<string> {
  if (dialect === 'postgres') {
    const [row] = await upsertUserWithTicketPostgres.run(db, { ...user, ...ticket })
    return (row as { user_id: string }).user_id
  }
  const [row] = await upsertUserSqlite.run(db, user)
  const userID = (row as { id: string }).id
  await insertTicketSqlite.run(db, { ...ticket, userID })
  return userID
}

const ticketConsumed = prepareQuery('tickets.consumeTicket', (db, args: { hash: string; now: number }) =>
  db
    .updateTable('tickets')
    .set({ used_at: args.now })
    .where('hash', '=', args.hash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', args.now)
    .returningAll(),
)

/**
 * Marks the ticket used, atomically: of concurrent exchanges of one ticket exactly one gets the
 * row. Undefined when the ticket is unknown, used or expired.
 */
export const consumeTicket = async (db: Kysely<Schema>, hash: string, now: number) =>
  (await ticketConsumed.run(db, { hash, now }))[0]

/** Deletes the user's tickets, used or not, and the devices they name (erasure). */
export const deleteTicketsOfUser = (db: Kysely<Schema>, userID: string) =>
  db.deleteFrom('tickets').where('user_id', '=', userID).execute()

export const findTicket = (db: Kysely<Schema>, hash: string) =>
  db.selectFrom('tickets').selectAll().where('hash', '=', hash).executeTakeFirst()
