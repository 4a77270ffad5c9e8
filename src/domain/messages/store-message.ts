import { type Kysely, type QueryCreator, type Selectable, sql } from 'kysely'
import { indexedText } from '../../lib/search-words.js'
import { dialectOf, prepareQuery } from '../../storage/prepared.js'
import type { MessagesTable, Schema } from '../../storage/schema.js'
import { nextCreated, nextMessageCreated, restoreLastMessageCreated } from '../rooms/rooms.repository.js'
import { indexMessage, indexStoredMessage } from '../search/search.repository.js'
import { NO_QUOTE, type Quote, type SendInput } from './message.js'
import { type MessageContent, MessageType } from './message-types.js'

export interface NewMessage {
  /** The message's ID (the database's `ids.next()`). */
  id: string
  roomID: string
  senderID: string
  localID: string
  type: number
  body: string
  data: Record<string, unknown>
  quote?: Quote | undefined
  replyTo?: string | undefined
  now: number
  /**
   * Whether its words go to the search index: a case's messages, which agents search (case
   * search); the chat rooms' are searched by nobody, so they cost no index entry.
   */
  searchable: boolean
}

/** The message a send of `input` (its content checked) makes in a room. */
export const newMessage = (
  id: string,
  now: number,
  to: { roomID: string; senderID: string },
  input: Pick<SendInput, 'localID' | 'quote' | 'replyTo'>,
  content: MessageContent,
): NewMessage => ({
  id,
  ...to,
  localID: input.localID,
  ...content,
  quote: input.quote,
  replyTo: input.replyTo,
  now,
  // Chat messages: a case's room takes messages through the case (case-engine.ts).
  searchable: false,
})

/**
 * Stores a message in its room: `created` = max(now, previous + 1) for the room, and its words in
 * the search index. Undefined when (sender, localID, room) is taken: a retry. On PostgreSQL it is
 * one statement, atomic by itself, so a send needs no transaction around it (one round trip
 * instead of five); on SQLite, three in the caller's transaction (in-process: no round trips).
 */
export async function storeMessage(
  db: Kysely<Schema>,
  message: NewMessage,
): Promise<Selectable<MessagesTable> | undefined> {
  const { row, words } = messageRow(message)
  if (dialectOf(db) === 'postgres') return storeInOneStatement(db, row, words)
  const created = await nextMessageCreated(db, row.room_id, message.now)
  if (await insertMessage(db, { ...row, created })) {
    if (words) await indexMessage(db, { id: row.id, roomID: row.room_id, words })
    return { ...row, created }
  }
  await restoreLastMessageCreated(db, row.room_id, created)
  return undefined
}

/** The message's row (`created` as of now, before its room's bump), and its words for the search. */
export function messageRow(message: NewMessage): { row: Selectable<MessagesTable>; words: string } {
  const row: Selectable<MessagesTable> = {
    id: message.id,
    room_id: message.roomID,
    sender_id: message.senderID,
    local_id: message.localID,
    type: message.type,
    body: message.body,
    data: JSON.stringify(message.data),
    quote: JSON.stringify(message.quote ?? NO_QUOTE),
    reply_to: message.replyTo ?? null,
    created: message.now,
    updated: message.now,
    is_deleted: 0,
    ...FRESH_MESSAGE,
  }
  // The search index is kept in step by the same commit; nobody says a system message.
  const indexed = message.searchable && row.type !== MessageType.system
  return { row, words: indexed ? indexedText(row.body) : '' }
}

async function storeInOneStatement(db: Kysely<Schema>, row: Selectable<MessagesTable>, words: string) {
  const [result] = await storeOnPostgres.run(db, { ...row, words })
  if (!result) return undefined // a retry: the message is stored, the room untouched
  const { bumped, ...stored } = result
  if (stored.id !== null) return stored as Selectable<MessagesTable>
  // A concurrent retry stored it between this statement's snapshot and its insert.
  await restoreLastMessageCreated(db, row.room_id, Number(bumped))
  return undefined
}

const insertUnlessRetry = prepareQuery(
  'messages.insertUnlessRetry',
  (db, row: Selectable<MessagesTable>) =>
    db
      .insertInto('messages')
      .values({
        id: row.id,
        room_id: row.room_id,
        sender_id: row.sender_id,
        local_id: row.local_id,
        type: row.type,
        body: row.body,
        data: row.data,
        quote: row.quote,
        reply_to: row.reply_to,
        created: row.created,
        updated: row.updated,
        is_deleted: row.is_deleted,
      })
      .onConflict((c) => c.columns(['sender_id', 'local_id', 'room_id']).doNothing())
      .returning('id'),
  // PostgreSQL stores a message with storeOnPostgres.
  { dialect: 'sqlite' },
)

/** SQLite: stores the message unless its (sender, localID, room) is taken; true when it was stored. */
async function insertMessage(db: Kysely<Schema>, row: Selectable<MessagesTable>): Promise<boolean> {
  return (await insertUnlessRetry.run(db, row)).length > 0
}

// A row when the room was bumped: with the message's columns, or nulls if a concurrent retry won.
const storeOnPostgres = prepareQuery(
  'messages.storeOnPostgres',
  (db, args: Selectable<MessagesTable> & { words: string }, shape) =>
    storingMessage(db, args, shape)
      .selectFrom('bump')
      .leftJoin('stored', (join) => join.onTrue())
      .select('bump.last_message_created as bumped')
      .selectAll('stored'),
  {
    dialect: 'postgres',
    shapes: ['indexed', 'plain'],
    shapeOf: (args) => (args.words ? 'indexed' : 'plain'),
  },
)

/**
 * PostgreSQL: the CTEs that store a message. `bump`: the room's, unless the message is stored
 * already (a retry); `stored`: the message, created as bumped, if bumped (a concurrent retry may
 * still win: then nothing); and in shape 'indexed' its search entry.
 */
function storingMessage(
  db: QueryCreator<Schema>,
  args: Selectable<MessagesTable> & { words?: string },
  shape: string,
) {
  const stored = db
    .with('bump', (qb) =>
      qb
        .updateTable('rooms')
        .set((eb) => ({ last_message_created: nextCreated(eb, args.created) }))
        .where('id', '=', args.room_id)
        .where(({ exists, not, selectFrom }) =>
          not(
            exists(
              selectFrom('messages')
                .select('id')
                .where('sender_id', '=', args.sender_id)
                .where('local_id', '=', args.local_id)
                .where('room_id', '=', args.room_id),
            ),
          ),
        )
        .returning('last_message_created'),
    )
    .with('stored', (qb) =>
      qb
        .insertInto('messages')
        .columns(MESSAGE_COLUMNS)
        .expression((eb) =>
          eb
            .selectFrom('bump')
            .select([
              eb.val(args.id).as('id'),
              eb.val(args.room_id).as('room_id'),
              eb.val(args.sender_id).as('sender_id'),
              eb.val(args.local_id).as('local_id'),
              sql<number>`${args.type}::integer`.as('type'),
              eb.val(args.body).as('body'),
              eb.val(args.data).as('data'),
              eb.val(args.quote).as('quote'),
              sql<string | null>`${args.reply_to}::text`.as('reply_to'),
              'bump.last_message_created as created',
              sql<number>`${args.updated}::bigint`.as('updated'),
              sql<number>`${args.is_deleted}::integer`.as('is_deleted'),
            ]),
        )
        .onConflict((c) => c.columns(['sender_id', 'local_id', 'room_id']).doNothing())
        .returningAll(),
    )
  return shape === 'indexed'
    ? stored.with('indexed', (qb) => indexStoredMessage(qb as never, args.words as string) as never)
    : stored
}

/**
 * What a message just stored has in the columns its insert leaves to their defaults (edits,
 * reactions, threads, pins: migration 0027): a send names none of them, so its statements stay
 * as they were.
 */
export const FRESH_MESSAGE = {
  edited: 0,
  reactions: '[]',
  thread_id: null,
  reply_count: 0,
  is_pinned: 0,
  revised: 0,
} as const

/** A message row's columns, in the table's order (those of migration 0027 aside: FRESH_MESSAGE). */
export const MESSAGE_COLUMNS = [
  'id',
  'room_id',
  'sender_id',
  'local_id',
  'type',
  'body',
  'data',
  'quote',
  'reply_to',
  'created',
  'updated',
  'is_deleted',
] as const
