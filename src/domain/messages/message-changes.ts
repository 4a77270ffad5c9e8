import type { Kysely, Selectable } from 'kysely'
import { AppError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { MessagesTable, Schema } from '../../storage/schema.js'
import type { Repositories } from '../repositories.js'
import type { RoomAccess, RoomsService } from '../rooms/rooms.service.js'
import type { Message } from './message.js'
import type { MessagesService } from './messages.service.js'

/** Which message: by its ID, and, when the caller names it, in that room. */
export interface MessageTarget {
  messageID: string
  roomID?: string | undefined
}

export type MessageRow = Selectable<MessagesTable>

/**
 * Who changes a message: a user, in the rooms they are in; or an agent (`agent:<id>`), in the room
 * of a case they may act in (`caseRoom`, checked by the agents' module: domain/cases/case-messages.ts).
 */
export interface MessageActor {
  userID: string
  organizationID: string
  caseRoom?: RoomAccess | undefined
}

/** What a change does to its message, locked, inside the change's transaction. */
export type ChangeWork = (trx: Kysely<Schema>, row: MessageRow, now: number) => Promise<void>

/**
 * How a message changes after its send (an edit, a reaction, a reply in its thread, a pin): one at
 * a time per message (its row is locked first), then everyone in the room (and a case's agents)
 * hears of it as it is now (`chat/updateMessage`), and a resync finds it (`new_and_updated`).
 */
export class MessageChanges {
  constructor(
    private readonly database: Database,
    private readonly repositories: Pick<Repositories, 'messages' | 'messageChanges'>,
    private readonly clock: Clock,
    private readonly rooms: RoomsService,
    private readonly messages: Pick<MessagesService, 'announceUpdated' | 'toMessages'>,
  ) {}

  /**
   * The message and the caller's access to its room. With a roomID, the caller must be in that
   * room (40301, also a room they left) and the message in it; a message of a room one cannot see
   * does not exist for them (40401).
   */
  async find(client: MessageActor, target: MessageTarget): Promise<{ row: MessageRow; access: RoomAccess }> {
    const named = target.roomID === undefined ? undefined : await this.roomAccess(client, target.roomID)
    const [row] = await this.repositories.messages.findMessages(this.database.db, [target.messageID])
    const missing = new AppError('notFound', `Message ${target.messageID} not found`)
    if (!row || (target.roomID !== undefined && row.room_id !== target.roomID)) throw missing
    const access =
      named ??
      (await this.roomAccess(client, row.room_id).catch((error: unknown) => {
        throw error instanceof AppError ? missing : error
      }))
    return { row, access }
  }

  /** The room, if the actor may use it: a user's own (40301 if not in it), an agent's case room. */
  async roomAccess(actor: MessageActor, roomID: string): Promise<RoomAccess> {
    if (!actor.caseRoom) return this.rooms.access(actor, roomID)
    if (actor.caseRoom.room.id !== roomID) throw new AppError('notFound', `Room ${roomID} not found`)
    return actor.caseRoom
  }

  /** Runs `work` on the message, locked, in one transaction; then announces it as it is now. */
  async change(client: MessageActor, target: MessageTarget, work: ChangeWork): Promise<Message> {
    const { row, access } = await this.find(client, target)
    await this.database.transaction(async (trx) => {
      const now = this.clock.now()
      const locked = await this.repositories.messageChanges.reviseMessage(trx, row.id, now)
      await work(trx, locked ?? row, now)
    })
    return (await this.announce(client.organizationID, access, [row.id]))[0] as Message
  }

  /** Reads the messages again and tells the room's participants (and followers) how they look now. */
  async announce(organizationID: string, access: RoomAccess, messageIDs: readonly string[]) {
    const rows = await this.repositories.messages.findMessages(this.database.db, messageIDs)
    return this.messages.announceUpdated(organizationID, access, rows)
  }

  /** The caller's view of these rows (of rooms they are in), in their order. */
  async view(client: MessageActor, rows: readonly MessageRow[]): Promise<Message[]> {
    const byID = new Map<string, Message>()
    for (const roomID of new Set(rows.map((row) => row.room_id))) {
      const access = await this.roomAccess(client, roomID)
      const ofRoom = rows.filter((row) => row.room_id === roomID)
      for (const message of await this.messages.toMessages(client.organizationID, access, ofRoom))
        byID.set(message.messageID, message)
    }
    return rows.map((row) => byID.get(row.id) as Message)
  }
}
