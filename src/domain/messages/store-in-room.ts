import { type Kysely, type Selectable, sql } from 'kysely'
import { prepareQuery } from '../../storage/prepared.js'
import type { MessagesTable, Schema } from '../../storage/schema.js'
import { RoomType } from '../rooms/room.js'
import { type RoomRead, roomReadOf, roomReadRows } from '../rooms/room-read.repository.js'
import { restoreLastMessageCreated } from '../rooms/rooms.repository.js'
import { MESSAGE_COLUMNS } from './store-message.js'

// PostgreSQL: sends, any number of them, as one statement, one round trip and one commit. It stores
// each message only if its sender may send there (the checks of rooms.sendAccess, in SQL) and
// reads each message's room as rooms.readRoom does, in the same snapshot: the caller runs
// sendAccess on that read, which cannot find fault with a send the statement stored, and finds
// the same fault the general send would.

export interface StoreInRoom {
  /** The message's row, `created` as of now (the statement makes it its room's next). */
  row: Selectable<MessagesTable>
  organizationID: string
  /** In a personal room, who receives; in a group room, the sender again. */
  recipientUserID: string
}

export interface StoredInRoom {
  /** The room as readRoom reads it (with the sender's and recipient's rows); undefined: no room. */
  read: RoomRead | undefined
  /** The message, unless it was not stored: not allowed, or a retry of one stored before. */
  stored: Selectable<MessagesTable> | undefined
}

/**
 * Stores each send's message in its room, of its organization, if its sender may send there (and,
 * in a personal room, its recipient may receive); reads each room with the sender's and
 * recipient's rows. Messages to one room get increasing `created` in the order given, as if sent
 * one after the other.
 */
export async function storeInRooms(
  db: Kysely<Schema>,
  sends: readonly StoreInRoom[],
): Promise<StoredInRoom[]> {
  const rows = await storeAndRead.run(db, columnsOf(sends))
  const rowsOf = sends.map((): Record<string, unknown>[] => [])
  for (const row of rows) rowsOf[Number(row.ord) - 1]?.push(row)
  const results: StoredInRoom[] = []
  for (const [i, { row }] of sends.entries()) results.push(await storedOf(db, row, rowsOf[i] ?? []))
  return results
}

async function storedOf(
  db: Kysely<Schema>,
  row: Selectable<MessagesTable>,
  rows: readonly Record<string, unknown>[],
): Promise<StoredInRoom> {
  const read = roomReadOf(rows)
  const [first] = rows
  if (!read || !first || first.bumped === null) return { read, stored: undefined }
  if (first.stored !== null) {
    const created = Number(first.bumped)
    read.room.last_message_created = created
    return { read, stored: { ...row, created } }
  }
  // Stored by a concurrent retry (or an earlier send of this batch with the same localID) between
  // the statement's snapshot and its insert.
  await restoreLastMessageCreated(db, row.room_id, Number(first.bumped))
  return { read, stored: undefined }
}

interface Columns {
  ids: string[]
  roomIDs: string[]
  senderIDs: string[]
  localIDs: string[]
  types: number[]
  bodies: string[]
  data: string[]
  quotes: string[]
  nows: number[]
  organizationIDs: string[]
  recipientIDs: string[]
  /** How many sends (the statement's LIMIT, for PostgreSQL's guess of its rows). */
  count: number
}

function columnsOf(sends: readonly StoreInRoom[]): Columns {
  const column = <T>(of: (send: StoreInRoom) => T) => sends.map(of)
  return {
    ids: column((s) => s.row.id),
    roomIDs: column((s) => s.row.room_id),
    senderIDs: column((s) => s.row.sender_id),
    localIDs: column((s) => s.row.local_id),
    types: column((s) => s.row.type),
    bodies: column((s) => s.row.body),
    data: column((s) => s.row.data),
    quotes: column((s) => s.row.quote),
    nows: column((s) => s.row.created),
    organizationIDs: column((s) => s.organizationID),
    recipientIDs: column((s) => s.recipientUserID),
    count: sends.length,
  }
}

// PostgreSQL plans a named statement for its values on each of its first five runs; then it makes
// a plan for any values (generic), and uses it from then on if it costs less than the custom
// plans did on average, planning included. For `unnest` of arrays it does not know it guesses 10
// rows, so the generic plan never did, and planning on every run cost twice as much as running
// (docs/benchmarks.md). The LIMIT, the batch's own size, is guessed as a tenth of that, one row;
// its lookups are by key whatever it guesses (next), and it joins the batch's rows in loops, one
// for each of another's, hence MAX_SENDS_PER_STATEMENT (one-statement-send.ts).
// Every lookup is per send, by primary key or unique index, whatever PostgreSQL believes of the
// tables' sizes: it plans this statement once per connection, often while they are small, and a
// join it may run as a hash of a whole table would then read all of it per batch. OFFSET 0 keeps
// a subquery from being merged into a join (it runs per row, with that row's values). The bump
// joins the batch's few rooms to `rooms`, which PostgreSQL does by key (an `= ANY` of their IDs
// was planned as a scan of the whole table).
// - `allowed`: the sends whose room is the organization's and no case's, with the sender in it and
//   the recipient too, a living user of the organization who did not block the sender (the
//   general send then says why: 40303); and not stored already (a retry).
// - `locked`: their rooms, locked in one order (two batches cannot deadlock), as last committed.
// - `created`: each message's, its room's next after the messages before it in the batch:
//   c(k) = max(now(k), c(k-1) + 1) with c(0) the room's last, which unrolls to
//   max(last + k, max over j <= k of (now(j) - j) + k).
// - `bump` moves each room to its newest; `stored` inserts (a concurrent retry may win: nothing).
// The answer: per send, in order, its room's rows as selectRoomRead gives them (read before the
// statement, as sendAccess expects), with `bumped` and, for a message stored, `stored` (its ID).
const storeAndRead = prepareQuery(
  'messages.storeInRooms',
  (db, args: Columns) => {
    const query = sql<Record<string, unknown>>`
      with input as materialized (
        select * from unnest(
          ${args.ids}::text[], ${args.roomIDs}::text[], ${args.senderIDs}::text[],
          ${args.localIDs}::text[], ${args.types}::integer[], ${args.bodies}::text[],
          ${args.data}::text[], ${args.quotes}::text[], ${args.nows}::bigint[],
          ${args.organizationIDs}::text[], ${args.recipientIDs}::text[]
        ) with ordinality as i (id, room_id, sender_id, local_id, type, body, data, quote, now,
          organization_id, recipient_id, ord)
        limit ${args.count}
      ),
      allowed as materialized (
        select i.* from input i
        where exists (select from rooms r where r.id = i.room_id
            and r.organization_id = i.organization_id and r.type <> ${sql.lit(RoomType.case)} offset 0)
          and exists (select from room_participants p
            where p.room_id = i.room_id and p.user_id = i.sender_id offset 0)
          and exists (select from room_participants p join users u on u.id = p.user_id
            where p.room_id = i.room_id and p.user_id = i.recipient_id
              and u.organization_id = i.organization_id and u.deleted_at is null offset 0)
          and not exists (select from messages m
            where m.sender_id = i.sender_id and m.local_id = i.local_id and m.room_id = i.room_id offset 0)
          and not exists (select from user_blocks b
            where b.blocker_id = i.recipient_id and b.blocked_id = i.sender_id offset 0)
      ),
      locked as materialized (
        select l.id, l.last_message_created
        from (select distinct room_id from allowed order by room_id) a
        cross join lateral (select id, last_message_created from rooms where id = a.room_id for update) l
      ),
      ranked as (
        select a.id, a.room_id, a.now, a.ord,
          row_number() over (partition by a.room_id order by a.ord) as k
        from allowed a
      ),
      created as materialized (
        select r.id, r.room_id, r.ord, greatest(l.last_message_created + r.k,
          max(r.now - r.k) over (partition by r.room_id order by r.ord) + r.k) as created
        from ranked r join locked l on l.id = r.room_id
      ),
      bump as (
        update rooms set last_message_created = newest.created
        from (select room_id, max(created) as created from created group by room_id) newest
        where rooms.id = newest.room_id
      ),
      stored as (
        insert into messages (${sql.raw(MESSAGE_COLUMNS.join(', '))})
        select i.id, i.room_id, i.sender_id, i.local_id, i.type, i.body, i.data, i.quote, null,
          c.created, i.now, 0
        from created c join input i on i.ord = c.ord order by c.ord
        on conflict (sender_id, local_id, room_id) do nothing
        returning id
      )
      select i.ord, read.*, c.created as bumped, s.id as stored
      from input i
      cross join lateral (${roomReadRows(db, sql`r.id = i.room_id`, sql`p.user_id in (i.sender_id, i.recipient_id)`)}
        offset 0) read
      left join created c on c.ord = i.ord
      left join stored s on s.id = i.id
      order by i.ord, read.p_joined, read.p_user_id`
    return { compile: () => query.compile(db as Kysely<Schema>) }
  },
  { dialect: 'postgres' },
)
