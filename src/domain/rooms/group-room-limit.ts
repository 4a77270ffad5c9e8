import type { Kysely } from 'kysely'
import { AppError } from '../../errors/app-error.js'
import type { Database } from '../../storage/database.js'
import type { Schema } from '../../storage/schema.js'
import type { Repositories } from '../repositories.js'

/**
 * Group rooms one user may be in, unless configured (GROUP_ROOMS_PER_USER): a user's room list
 * stays a size a client can page through, and nobody can bury another user under rooms they
 * were added to (docs/reference/quotas.md).
 */
export const GROUP_ROOMS_PER_USER = 500

export interface GroupRoomLimit {
  database: Pick<Database, 'dialect'>
  repositories: Pick<Repositories, 'rooms'>
  limit: number
}

/**
 * Adds the users to the group room, in the caller's transaction, unless one of them is in as many
 * group rooms as one may be (this room not counted: those in it already stay): 409/40902. Under
 * the users' locks, so that rooms created or joined at once cannot pass the limit together.
 */
export async function joinGroup(
  trx: Kysely<Schema>,
  { database, repositories, limit }: GroupRoomLimit,
  roomID: string,
  userIDs: readonly string[],
  now: number,
): Promise<void> {
  await repositories.rooms.lockUsers(trx, userIDs, database.dialect)
  const counts = { userIDs, atLeast: limit, exceptRoomID: roomID }
  const full = await repositories.rooms.groupRoomCounts(trx, counts)
  if (full.length > 0) {
    const names = full.map((row) => row.user_id).join(', ')
    const message = `User ${names} is in ${limit} group rooms, the most one may be in`
    throw new AppError('limitReached', message, 'userIDs')
  }
  await repositories.rooms.addParticipants(trx, roomID, userIDs, now)
}
