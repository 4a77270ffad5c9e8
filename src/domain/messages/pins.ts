import { AppError, paramError } from '../../errors/app-error.js'
import type { Database } from '../../storage/database.js'
import type { Repositories } from '../repositories.js'
import type { Message } from './message.js'
import type { MessageActor, MessageChanges } from './message-changes.js'

/** Most pinned messages in one room (docs/reference/limits.md). */
export const MAX_PINS_PER_ROOM = 50

/** A page of a list by page number (as the family's SDKs ask for pinned and starred messages). */
export interface NumberedPage {
  pageNumber: number
  pageSize: number
}

export interface MessageListPage {
  messages: Message[]
  hasMore: boolean
}

/** Most messages one page of pinned or starred messages holds, whatever the page size asked. */
export const LIST_PAGE_MAX = 100

export const pageBounds = ({ pageNumber, pageSize }: NumberedPage) => {
  const limit = Math.min(pageSize, LIST_PAGE_MAX)
  return { limit, offset: (pageNumber - 1) * limit }
}

/**
 * Pinned messages of a room: any participant may pin or unpin any message of the room (as in
 * the family's SDKs and most chat apps; docs/reference/client-api.md#pins). Each pin changes the
 * message (`isPinned`), so everyone sees it live and after a resync.
 */
export class Pins {
  constructor(
    private readonly deps: {
      database: Database
      repositories: Pick<Repositories, 'messageChanges'>
      changes: MessageChanges
    },
  ) {}

  async pin(client: MessageActor, roomID: string, messageIDs: readonly string[]): Promise<Message[]> {
    const { messageChanges } = this.deps.repositories
    const pinned: Message[] = []
    for (const messageID of new Set(messageIDs))
      pinned.push(
        await this.deps.changes.change(client, { roomID, messageID }, async (trx, row, now) => {
          if (row.is_deleted === 1) throw paramError('messageIDs', `has a deleted message (${row.id})`)
          if (row.is_pinned === 1) return
          // Counted with the room's row locked (change() counts a change of the room first: see
          // reviseMessage): pins racing for the room's last place get it one at a time, and the
          // second finds the room full (test/integration/pins-stars.test.ts).
          if ((await messageChanges.pinCount(trx, roomID)) >= MAX_PINS_PER_ROOM)
            throw new AppError(
              'limitReached',
              `A room has at most ${MAX_PINS_PER_ROOM} pinned messages`,
              'messageIDs',
            )
          await messageChanges.addPin(trx, {
            room_id: roomID,
            message_id: row.id,
            pinned_by: client.userID,
            created: now,
          })
          await messageChanges.setPinned(trx, row.id, true)
        }),
      )
    return pinned
  }

  async unpin(client: MessageActor, roomID: string, messageIDs: readonly string[]): Promise<Message[]> {
    const { messageChanges } = this.deps.repositories
    const unpinned: Message[] = []
    for (const messageID of new Set(messageIDs))
      unpinned.push(
        await this.deps.changes.change(client, { roomID, messageID }, async (trx, row) => {
          await messageChanges.removePin(trx, roomID, row.id)
          await messageChanges.setPinned(trx, row.id, false)
        }),
      )
    return unpinned
  }

  /** The room's pinned messages' IDs, most recently pinned first. */
  async pinnedIDs(client: MessageActor, roomID: string): Promise<string[]> {
    await this.deps.changes.roomAccess(client, roomID)
    const rows = await this.deps.repositories.messageChanges.pinnedOf(this.deps.database.db, roomID, {
      limit: MAX_PINS_PER_ROOM,
      offset: 0,
    })
    return rows.map((row) => row.id)
  }

  /** A page of the room's pinned messages, most recently pinned first. */
  async pinned(client: MessageActor, roomID: string, page: NumberedPage): Promise<MessageListPage> {
    await this.deps.changes.roomAccess(client, roomID)
    const { limit, offset } = pageBounds(page)
    const rows = await this.deps.repositories.messageChanges.pinnedOf(this.deps.database.db, roomID, {
      limit: limit + 1,
      offset,
    })
    const messages = await this.deps.changes.view(client, rows.slice(0, limit))
    return { messages, hasMore: rows.length > limit }
  }
}
