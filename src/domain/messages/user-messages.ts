import type { Selectable } from 'kysely'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { MessagesTable } from '../../storage/schema.js'
import type { Files } from '../files/files.service.js'
import type { Repositories } from '../repositories.js'
import type { RoomsService } from '../rooms/rooms.service.js'
import type { MessagesService } from './messages.service.js'

/** A message as a user's data export holds it: who sent it, what it said, when. */
export interface ExportedMessage {
  messageID: string
  roomID: string
  /** A userID, `agent:<id>`, `chatbot:<id>` or `system`. */
  senderID: string
  type: number
  body: string
  data: Record<string, unknown>
  created: number
  updated: number
  isDeleted: boolean
}

export const toExportedMessage = (row: Selectable<MessagesTable>): ExportedMessage => ({
  messageID: row.id,
  roomID: row.room_id,
  senderID: row.sender_id,
  type: row.type,
  body: row.body,
  data: JSON.parse(row.data) as Record<string, unknown>,
  created: row.created,
  updated: row.updated,
  isDeleted: row.is_deleted === 1,
})

const ERASE_BATCH = 500

export interface UserMessagesDependencies {
  database: Database
  clock: Clock
  repositories: Pick<Repositories, 'messages'>
  rooms: RoomsService
  messages: MessagesService
  files: Files
}

/** One user's messages as a whole: erased with the user, or exported for them. */
export class UserMessages {
  constructor(private readonly deps: UserMessagesDependencies) {}

  /**
   * Erases every message the user sent, as deleting a message does (content blanked, files'
   * bytes and names removed), and the quotes of replies to them, in batches; each room hears
   * `chat/updateMessage` of each. How many were erased.
   */
  async eraseAllOf(organizationID: string, userID: string): Promise<number> {
    const { database, repositories, files, clock } = this.deps
    let erased = 0
    for (;;) {
      const rows = await repositories.messages.sentBy(database.db, userID, {
        limit: ERASE_BATCH,
        undeletedOnly: true,
      })
      if (rows.length === 0) return erased
      const ids = rows.map((row) => row.id)
      const roomIDs = [...new Set(rows.map((row) => row.room_id))]
      const replies = await database.transaction(async (trx) => {
        await repositories.messages.markDeleted(trx, ids, clock.now())
        return repositories.messages.clearQuotesOf(trx, roomIDs, ids, clock.now())
      })
      await files.deleteOfMessages(ids)
      const changed = await repositories.messages.findMessages(database.db, [...ids, ...replies])
      for (const roomID of roomIDs) {
        const access = await this.deps.rooms.snapshot(roomID)
        const current = changed.filter((row) => row.room_id === roomID)
        await this.deps.messages.announceUpdated(organizationID, access, current)
      }
      erased += rows.length
    }
  }

  /** The user's own messages, oldest first, at most `limit` (and whether there were more). */
  async sentBy(userID: string, limit: number): Promise<{ messages: ExportedMessage[]; truncated: boolean }> {
    const rows = await this.deps.repositories.messages.sentBy(this.deps.database.db, userID, {
      limit: limit + 1,
      undeletedOnly: false,
    })
    return { messages: rows.slice(0, limit).map(toExportedMessage), truncated: rows.length > limit }
  }

  /** A room's messages, oldest first, at most `limit` (and whether there were more). */
  async ofRoom(roomID: string, limit: number): Promise<{ messages: ExportedMessage[]; truncated: boolean }> {
    const rows = await this.deps.repositories.messages.firstOfRoom(this.deps.database.db, roomID, limit + 1)
    return { messages: rows.slice(0, limit).map(toExportedMessage), truncated: rows.length > limit }
  }
}
