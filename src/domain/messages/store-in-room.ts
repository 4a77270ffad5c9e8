import type { Kysely, Selectable } from 'kysely'
import { prepareQuery } from '../../storage/prepared.js'
import { picker } from '../../storage/rows.js'
import type { MessagesTable, Schema } from '../../storage/schema.js'
import { RoomType } from '../rooms/room.js'
import { type RoomRead, roomReadOf, selectRoomRead, usersToRead } from '../rooms/room-read.repository.js'
import { restoreLastMessageCreated } from '../rooms/rooms.repository.js'
import { MESSAGE_COLUMNS, storingMessage } from './store-message.js'

// PostgreSQL: a send as one statement, one round trip. It stores the message only if the sender
// may send there (the checks of rooms.sendAccess, in SQL) and reads the room as rooms.readRoom
// does, in the same snapshot: the caller runs sendAccess on that read, which cannot find fault
// with a send the statement stored, and finds the same fault the two-statement send would.

export interface StoredInRoom {
  /** The room as readRoom reads it (with the sender's and recipient's rows); undefined: no room. */
  read: RoomRead | undefined
  /** The message, unless it was not stored: not allowed, or a retry of one stored before. */
  stored: Selectable<MessagesTable> | undefined
}

/**
 * Stores `row` in its room, of `organizationID`, if its sender may send there (and, in a personal
 * room, `recipientUserID` may receive; in a group room, pass the sender); reads the room with the
 * sender's and recipient's rows.
 */
export async function storeInRoom(
  db: Kysely<Schema>,
  row: Selectable<MessagesTable>,
  to: { organizationID: string; recipientUserID: string },
): Promise<StoredInRoom> {
  const users = usersToRead([row.sender_id, to.recipientUserID])
  const rows = await storeAndRead.run(db, { ...row, ...to, ...users })
  const read = roomReadOf(rows)
  const [first] = rows
  if (!read || !first || first.bumped === null) return { read, stored: undefined }
  if (first.m_id !== null) {
    read.room.last_message_created = Number(first.bumped)
    return { read, stored: storedOf(first) }
  }
  // A concurrent retry stored it between this statement's snapshot and its insert.
  await restoreLastMessageCreated(db, row.room_id, Number(first.bumped))
  return { read, stored: undefined }
}

const storedOf = picker('m_', MESSAGE_COLUMNS) as (row: Record<string, unknown>) => Selectable<MessagesTable>

type Args = Selectable<MessagesTable> & {
  organizationID: string
  recipientUserID: string
  userA: string
  userB: string
}

const storeAndRead = prepareQuery(
  'messages.storeInRoom',
  (db, args: Args) =>
    // The room is the organization's and no case's; the sender is in it, and so is the recipient
    // (in a group room, the sender again), a living user of the organization. A chat room's
    // message goes to no search index (only cases' are searched).
    storingMessage(db, args, 'plain', (eb) =>
      eb.and([
        eb('organization_id', '=', args.organizationID),
        eb('type', '<>', RoomType.case),
        eb.exists(
          eb
            .selectFrom('room_participants')
            .select('user_id')
            .where('room_id', '=', args.room_id)
            .where('user_id', '=', args.sender_id),
        ),
        eb.exists(
          eb
            .selectFrom('room_participants as p')
            .innerJoin('users as u', 'u.id', 'p.user_id')
            .select('p.user_id')
            .where('p.room_id', '=', args.room_id)
            .where('p.user_id', '=', args.recipientUserID)
            .where('u.organization_id', '=', args.organizationID)
            .where('u.deleted_at', 'is', null),
        ),
      ]),
    )
      .with('read', (qb) =>
        selectRoomRead(qb as never, { roomID: args.room_id, userA: args.userA, userB: args.userB }),
      )
      .selectFrom('read')
      .leftJoin('bump', (join) => join.onTrue())
      .leftJoin('stored', (join) => join.onTrue())
      .selectAll('read')
      .select([
        'bump.last_message_created as bumped',
        ...MESSAGE_COLUMNS.map((c) => `stored.${c} as m_${c}` as const),
      ])
      .orderBy('read.p_joined')
      .orderBy('read.p_user_id'),
  { dialect: 'postgres' },
)
