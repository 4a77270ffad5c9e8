import type { Selectable } from 'kysely'
import type { Clock } from '../../lib/clock.js'
import { Batcher } from '../../storage/batcher.js'
import type { Database } from '../../storage/database.js'
import type { MessagesTable } from '../../storage/schema.js'
import type { Events } from '../events/events.service.js'
import type { Repositories } from '../repositories.js'
import type { RoomAccess, RoomsService } from '../rooms/rooms.service.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import type { SendInput } from './message.js'
import { checkContent, fileIDOf, type MessageContent } from './message-types.js'
import { type StoredInRoom, type StoreInRoom, storeInRooms } from './store-in-room.js'
import { messageRow, newMessage } from './store-message.js'

/**
 * The most sends in one statement. The plan PostgreSQL keeps for it is made for a batch of one
 * (store-in-room.ts), and joins a batch's rows in nested loops: a backlog of 2,000 sends (after a
 * stall) took 3-4× as long as one statement as with a plan made for its size; in batches of 100 a
 * send costs no more than in batches of 10 (docs/benchmarks.md).
 */
export const MAX_SENDS_PER_STATEMENT = 100

/**
 * PostgreSQL: a send in one round trip. A message that needs nothing but storing (no file to
 * attach, no replyTo to check, no event endpoint to tell) is stored, and its room read, by one
 * statement (store-in-room.ts) instead of a room read and then the store; on a busy server, with
 * the other such sends that arrived meanwhile (a Batcher's): one round trip and one commit for all.
 */
export class OneStatementSend {
  private readonly stores: Batcher<StoreInRoom, StoredInRoom | undefined>

  constructor(
    private readonly database: Database,
    private readonly repositories: Pick<Repositories, 'messages'>,
    private readonly rooms: RoomsService,
    private readonly events: Events,
    private readonly clock: Clock,
  ) {
    // A batch that fails stored none of its messages (one statement): each goes the general way,
    // which fails alone, with its own error, if it fails at all. One batch at a time: each is a
    // commit, and under load the next gathers more messages while this one flushes, which costs
    // PostgreSQL less CPU for the same latency (docs/benchmarks.md, "Real time").
    this.stores = new Batcher(
      (sends) => storeInRooms(database.db, sends).catch(() => sends.map(() => undefined)),
      1,
      MAX_SENDS_PER_STATEMENT,
    )
  }

  /**
   * The message stored (or found stored: a retry) and its room; undefined when the general send
   * must run: on SQLite, for a room not opened yet, for a message that needs more, or for content
   * it refuses (it says so, after any fault with the room, as it always has).
   */
  async send(
    client: ClientIdentity,
    input: SendInput,
  ): Promise<{ access: RoomAccess; row: Selectable<MessagesTable> } | undefined> {
    if (this.database.dialect !== 'postgres' || input.replyTo || input.threadID) return undefined
    const to = this.rooms.sendTarget(client, input)
    const content = acceptedContent({ type: input.type, body: input.body ?? '', data: input.data })
    if (!content || !(await onlyStored(this.events, client.organizationID, content))) return undefined
    const id = this.database.ids.next()
    const message = newMessage(
      id,
      this.clock.now(),
      { roomID: to.roomID, senderID: client.userID },
      input,
      content,
    )
    const { row } = messageRow(message)
    // In a group room the statement checks the sender as it checks a personal room's recipient.
    const recipientUserID = to.recipientUserID ?? client.userID
    const result = await this.stores.run({ row, organizationID: client.organizationID, recipientUserID })
    if (!result) return undefined
    const { read, stored } = result
    // What the statement refused, this refuses too (the same checks), with the reason.
    const access = this.rooms.sendAccess(client, to, read)
    if (!access) return undefined
    const found =
      stored ??
      (await this.repositories.messages.findBySenderLocalID(
        this.database.db,
        client.userID,
        input.localID,
        to.roomID,
      ))
    return found && { access, row: found }
  }
}

/** Whether storing is all a message needs: it carries no file, and no event endpoint hears of it. */
export async function onlyStored(events: Events, organizationID: string, content: MessageContent) {
  return fileIDOf(content) === undefined && !(await events.mayRecord(organizationID, 'message.new'))
}

function acceptedContent(content: MessageContent): MessageContent | undefined {
  try {
    return checkContent(content)
  } catch {
    return undefined
  }
}
