import type { ExpressionBuilder, Insertable, Kysely } from 'kysely'
import { prepareQuery } from '../../storage/prepared.js'
import type { Dialect, RoomsTable, Schema } from '../../storage/schema.js'
import { RoomType } from './room.js'

export const insertRoom = (db: Kysely<Schema>, row: Insertable<RoomsTable>) =>
  db
    .insertInto('rooms')
    .values(row)
    .onConflict((c) => c.column('id').doNothing())
    .execute()

export * from './group-roles.repository.js'
export * from './room-read.repository.js'

export const findRoom = (db: Kysely<Schema>, id: string) =>
  db.selectFrom('rooms').selectAll().where('id', '=', id).executeTakeFirst()

export const findRooms = (db: Kysely<Schema>, ids: readonly string[]) =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('rooms').selectAll().where('id', 'in', ids).execute()

/** Adds participants; those already in the room stay as they were. */
export const addParticipants = (
  db: Kysely<Schema>,
  roomID: string,
  userIDs: readonly string[],
  now: number,
) =>
  userIDs.length === 0
    ? Promise.resolve()
    : db
        .insertInto('room_participants')
        .values(userIDs.map((userID) => ({ room_id: roomID, user_id: userID, joined: now })))
        .onConflict((c) => c.columns(['room_id', 'user_id']).doNothing())
        .execute()

export const removeParticipants = (db: Kysely<Schema>, roomID: string, userIDs: readonly string[]) =>
  db.deleteFrom('room_participants').where('room_id', '=', roomID).where('user_id', 'in', userIDs).execute()

export const touchRoom = (db: Kysely<Schema>, roomID: string, now: number) =>
  db.updateTable('rooms').set({ updated: now }).where('id', '=', roomID).execute()

/**
 * SQLite: the `created` of the room's next message: max(now, previous + 1), so `created` strictly
 * increases within a room even when the clock stands still or steps back. The row lock this takes
 * also orders concurrent sends to one room. (PostgreSQL bumps it in messages.storeOnPostgres.)
 */
export async function nextMessageCreated(db: Kysely<Schema>, roomID: string, now: number): Promise<number> {
  const [row] = await bumpLastMessageCreated.run(db, { roomID, now })
  if (!row) throw new Error(`room ${roomID} does not exist`)
  return row.last_message_created
}

const bumpLastMessageCreated = prepareQuery(
  'rooms.bumpLastMessageCreated',
  (db, args: { roomID: string; now: number }) =>
    db
      .updateTable('rooms')
      .set((eb) => ({ last_message_created: nextCreated(eb, args.now) }))
      .where('id', '=', args.roomID)
      .returning('last_message_created'),
  // Every send moves a room's last `created`: a send's kept room read may hold an older one.
  { dialect: 'sqlite', sparesRoomReads: true },
)

/** A room's next message `created`: now, or one more than its last if that is not before now. */
export const nextCreated = (eb: ExpressionBuilder<Schema, 'rooms'>, now: number) =>
  eb
    .case()
    .when(eb('last_message_created', '>=', now))
    .then(eb('last_message_created', '+', 1))
    .else(now)
    .end()

/**
 * Sets the room's last `created` back to its newest stored message after a bump to `bumped` that
 * stored nothing (a concurrent retry stored the message first). Unless another send bumped it
 * since: that one's message is stored in the same commit as its bump, so the room is right as it is.
 */
export const restoreLastMessageCreated = (db: Kysely<Schema>, roomID: string, bumped: number) =>
  db
    .updateTable('rooms')
    .set((eb) => ({
      last_message_created: eb.fn.coalesce(
        eb
          .selectFrom('messages')
          .select((m) => m.fn.max('created').as('c'))
          .where('room_id', '=', roomID),
        eb.lit(0),
      ),
    }))
    .where('id', '=', roomID)
    .where('last_message_created', '=', bumped)
    .execute()

/** Rooms the user is in, newest activity first. */
export const roomsOfUser = (db: Kysely<Schema>, userID: string) =>
  db
    .selectFrom('rooms as r')
    .innerJoin('room_participants as p', 'p.room_id', 'r.id')
    .selectAll('r')
    .where('p.user_id', '=', userID)
    .orderBy('r.last_message_created', 'desc')
    .orderBy('r.updated', 'desc')
    .execute()

/** Where a page of a user's rooms starts: after this room (newest activity first). */
export interface RoomListCursor {
  lastMessageCreated: number
  roomID: string
}

/**
 * A page of the rooms the user is in, newest message first (rooms without messages last, newest
 * ID first), after `before` if given: at most `limit`.
 */
export const roomPageOfUser = (
  db: Kysely<Schema>,
  page: { userID: string; limit: number; before?: RoomListCursor | undefined },
) =>
  db
    .selectFrom('rooms as r')
    .innerJoin('room_participants as p', 'p.room_id', 'r.id')
    .selectAll('r')
    .where('p.user_id', '=', page.userID)
    .$if(page.before !== undefined, (q) => {
      const { lastMessageCreated, roomID } = page.before as RoomListCursor
      return q.where((eb) =>
        eb.or([
          eb('r.last_message_created', '<', lastMessageCreated),
          eb.and([eb('r.last_message_created', '=', lastMessageCreated), eb('r.id', '<', roomID)]),
        ]),
      )
    })
    .orderBy('r.last_message_created', 'desc')
    .orderBy('r.id', 'desc')
    .limit(page.limit)
    .execute()

/**
 * How many group rooms each of these users is in, for those in at least `atLeast` (not counting
 * `exceptRoomID`, the room they are joining).
 */
export const groupRoomCounts = async (
  db: Kysely<Schema>,
  query: { userIDs: readonly string[]; atLeast: number; exceptRoomID: string },
) =>
  query.userIDs.length === 0
    ? []
    : db
        .selectFrom('room_participants as p')
        .innerJoin('rooms as r', 'r.id', 'p.room_id')
        .select(['p.user_id', (eb) => eb.fn.countAll<string>().as('rooms')])
        .where('p.user_id', 'in', query.userIDs)
        .where('r.type', '=', RoomType.group)
        .where('p.room_id', '<>', query.exceptRoomID)
        .groupBy('p.user_id')
        .having((eb) => eb.fn.countAll(), '>=', query.atLeast)
        .execute()

/**
 * Holds the users' rows until the transaction ends (PostgreSQL; SQLite has one writer), in one
 * order, so that rooms joined by the same users at once are counted one after another.
 */
export const lockUsers = async (db: Kysely<Schema>, userIDs: readonly string[], dialect: Dialect) => {
  if (dialect === 'postgres' && userIDs.length > 0)
    await db
      .selectFrom('users')
      .select('id')
      .where('id', 'in', userIDs)
      .orderBy('id')
      .forNoKeyUpdate()
      .execute()
}

export const participantsOfRooms = (db: Kysely<Schema>, roomIDs: readonly string[]) =>
  roomIDs.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('room_participants')
        .selectAll()
        .where('room_id', 'in', roomIDs)
        .orderBy('joined')
        .orderBy('user_id')
        .execute()

/** Moves the user's read (and delivered) marks in a room forward to `upTo`, never back. */
export async function advanceReceipts(
  db: Kysely<Schema>,
  receipt: { roomID: string; userID: string; upTo: number; read: boolean },
): Promise<void> {
  await advanceMarks.run(db, receipt)
}

// A receipt moves marks only up to messages already stored: every message sent later is after
// them, so a send's cached room read may keep the marks it read (its message is neither read nor
// delivered either way).
const advanceMarks = prepareQuery(
  'rooms.advanceReceipts',
  (db, receipt: { roomID: string; userID: string; upTo: number; read: boolean }, shape) =>
    db
      .updateTable('room_participants')
      .set((eb) => {
        const forward = (column: 'read_up_to' | 'delivered_up_to') =>
          eb
            .case()
            .when(eb(column, '<', receipt.upTo))
            .then(receipt.upTo)
            .else(eb.ref(column))
            .end()
        return shape === 'read'
          ? { read_up_to: forward('read_up_to'), delivered_up_to: forward('delivered_up_to') }
          : { delivered_up_to: forward('delivered_up_to') }
      })
      .where('room_id', '=', receipt.roomID)
      .where('user_id', '=', receipt.userID),
  {
    shapeOf: (receipt) => (receipt.read ? 'read' : 'delivered'),
    shapes: ['read', 'delivered'],
    sparesRoomReads: true,
  },
)

/** Moves the agents' read mark of a case's room forward to `upTo`; false when it was there already. */
export async function advanceAgentsRead(db: Kysely<Schema>, roomID: string, upTo: number): Promise<boolean> {
  const result = await db
    .updateTable('rooms')
    .set({ agents_read_up_to: upTo })
    .where('id', '=', roomID)
    .where('agents_read_up_to', '<', upTo)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

const peersOf = prepareQuery('rooms.roomPeers', (db, args: { userID: string }) =>
  db
    .selectFrom('room_participants as peer')
    .innerJoin('room_participants as mine', 'mine.room_id', 'peer.room_id')
    .select('peer.user_id')
    .distinct()
    .where('mine.user_id', '=', args.userID)
    .where('peer.user_id', '<>', args.userID),
)

/** Everyone who shares at least one room with the user (not the user). */
export async function roomPeers(db: Kysely<Schema>, userID: string): Promise<string[]> {
  return (await peersOf.run(db, { userID })).map((row) => row.user_id)
}
