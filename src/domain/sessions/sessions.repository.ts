import type { Kysely } from 'kysely'
import { prepareQuery } from '../../storage/prepared.js'
import { markRevoked } from '../../storage/revocation.js'
import type { RefreshTokensTable, Schema, SessionsTable } from '../../storage/schema.js'

export const insertSession = (db: Kysely<Schema>, row: SessionsTable) =>
  db.insertInto('sessions').values(row).execute()

export const insertRefreshToken = (db: Kysely<Schema>, row: RefreshTokensTable) =>
  db.insertInto('refresh_tokens').values(row).execute()

const sessionByID = prepareQuery('sessions.sessionByID', (db, args: { id: string }) =>
  db.selectFrom('sessions').selectAll().where('id', '=', args.id),
)

export const findSession = async (db: Kysely<Schema>, id: string) => (await sessionByID.run(db, { id }))[0]

export const listSessions = (db: Kysely<Schema>, userID: string) =>
  // Oldest first: by time, as IDs of the two formats do not sort by it (lib/ids.ts).
  db
    .selectFrom('sessions')
    .selectAll()
    .where('user_id', '=', userID)
    .orderBy('created')
    .orderBy('id')
    .execute()

/** The user's newest session (the device they last signed in from), if any. */
export const latestSessionOf = (db: Kysely<Schema>, userID: string) =>
  db
    .selectFrom('sessions')
    .selectAll()
    .where('user_id', '=', userID)
    .orderBy('created', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()

/** The refresh token and its session. */
export const findRefreshToken = (db: Kysely<Schema>, hash: string) =>
  db
    .selectFrom('refresh_tokens as t')
    .innerJoin('sessions as s', 's.id', 't.session_id')
    .select([
      't.hash',
      't.session_id',
      't.expires_at',
      't.rotated_at',
      's.user_id',
      's.organization_id',
      's.revoked_at',
    ])
    .where('t.hash', '=', hash)
    .executeTakeFirst()

/** Retires the token if it is still current; false when another exchange got there first. */
export async function rotateRefreshToken(db: Kysely<Schema>, hash: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('refresh_tokens')
    .set({ rotated_at: now })
    .where('hash', '=', hash)
    .where('rotated_at', 'is', null)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export const touchSession = (db: Kysely<Schema>, id: string, now: number) =>
  db.updateTable('sessions').set({ refreshed: now }).where('id', '=', id).execute()

/** Where the session's `new_and_updated` goes on from: its last sync, else its start. */
export const syncPointOf = async (db: Kysely<Schema>, id: string): Promise<number> => {
  const row = await db
    .selectFrom('sessions')
    .select(['created', 'synced_up_to'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
  return row.synced_up_to ?? row.created
}

export const setSyncPoint = (db: Kysely<Schema>, id: string, upTo: number) =>
  db.updateTable('sessions').set({ synced_up_to: upTo }).where('id', '=', id).execute()

/** Revokes the session (keeping the first revocation time); false when there is no such session. */
export const revokeSession = (db: Kysely<Schema>, id: string, now: number) =>
  markRevoked(db, 'sessions', id, now)

/** Blanks the devices the user's sessions were opened from (erasure: the sessions stay, revoked). */
export const eraseDevicesOfUser = (db: Kysely<Schema>, userID: string) =>
  db
    .updateTable('sessions')
    .set({ ip_address: '', user_agent: '', platform: '', device_id: '' })
    .where('user_id', '=', userID)
    .execute()

/** Revokes every live session of the user; the IDs of those it revoked. */
export const revokeSessionsOfUser = async (db: Kysely<Schema>, userID: string, now: number) =>
  (
    await db
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('user_id', '=', userID)
      .where('revoked_at', 'is', null)
      .returning('id')
      .execute()
  ).map((row) => row.id)
