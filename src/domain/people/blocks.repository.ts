import type { Kysely } from 'kysely'
import { countRows } from '../../storage/count.js'
import { prepareQuery } from '../../storage/prepared.js'
import type { Schema } from '../../storage/schema.js'

// Who blocked whom: rows of (blocker, blocked). Sends read by the blocked user (their index).

/** Blocks `blockedID`; true when it was not blocked before. */
export const insertBlock = async (db: Kysely<Schema>, blockerID: string, blockedID: string, now: number) =>
  (
    await db
      .insertInto('user_blocks')
      .values({ blocker_id: blockerID, blocked_id: blockedID, created: now })
      .onConflict((c) => c.columns(['blocker_id', 'blocked_id']).doNothing())
      .returning('blocked_id')
      .execute()
  ).length > 0

export const deleteBlock = (db: Kysely<Schema>, blockerID: string, blockedID: string) =>
  db
    .deleteFrom('user_blocks')
    .where('blocker_id', '=', blockerID)
    .where('blocked_id', '=', blockedID)
    .execute()

export const countBlocked = (db: Kysely<Schema>, blockerID: string) =>
  countRows(db.selectFrom('user_blocks').where('blocker_id', '=', blockerID))

const blockOf = prepareQuery('people.isBlocked', (db, args: { blockerID: string; blockedID: string }) =>
  db
    .selectFrom('user_blocks')
    .select('created')
    .where('blocker_id', '=', args.blockerID)
    .where('blocked_id', '=', args.blockedID),
)

/** Whether `blockerID` blocked `blockedID`. */
export const isBlocked = async (db: Kysely<Schema>, blockerID: string, blockedID: string) =>
  (await blockOf.run(db, { blockerID, blockedID })).length > 0

/** The users `blockerID` blocked, oldest block first, each with its user row. */
export const listBlocked = (db: Kysely<Schema>, blockerID: string) =>
  db
    .selectFrom('user_blocks as b')
    .innerJoin('users as u', 'u.id', 'b.blocked_id')
    .selectAll('u')
    .select('b.created as blocked_created')
    .where('b.blocker_id', '=', blockerID)
    .orderBy('b.created')
    .orderBy('b.blocked_id')
    .execute()

const blockedBy = prepareQuery('people.blockedIDs', (db, args: { blockerID: string }) =>
  db.selectFrom('user_blocks').select('blocked_id').where('blocker_id', '=', args.blockerID),
)

/** The IDs of the users `blockerID` blocked. */
export const blockedIDs = async (db: Kysely<Schema>, blockerID: string) =>
  (await blockedBy.run(db, { blockerID })).map((row) => row.blocked_id)

/** Those who blocked `blockedID`, with when (the server API). */
export const blockersOf = (db: Kysely<Schema>, blockedID: string) =>
  db
    .selectFrom('user_blocks')
    .select(['blocker_id', 'created'])
    .where('blocked_id', '=', blockedID)
    .orderBy('created')
    .orderBy('blocker_id')
    .execute()

/** Erasure: the user's blocks, and those of others on them. */
export const eraseBlocksOf = (db: Kysely<Schema>, userID: string) =>
  db
    .deleteFrom('user_blocks')
    .where((eb) => eb.or([eb('blocker_id', '=', userID), eb('blocked_id', '=', userID)]))
    .execute()
