import { AppError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Repositories } from '../repositories.js'
import type { RoomsService } from '../rooms/rooms.service.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import type { MessageChanges } from './message-changes.js'
import { type MessageListPage, type NumberedPage, pageBounds } from './pins.js'

/** Most messages one user keeps starred (docs/reference/limits.md). */
export const MAX_STARS_PER_USER = 1000

/**
 * Starred messages: each user's own, private (nobody else hears of them), listed per room or
 * across the rooms the user is in. The user's other devices hear of each change (`chat/starred`).
 */
export class Stars {
  constructor(
    private readonly deps: {
      database: Database
      repositories: Pick<Repositories, 'messages' | 'messageChanges'>
      changes: MessageChanges
      rooms: RoomsService
      clock: Clock
      happenings: Dispatcher
    },
  ) {}

  async star(client: ClientIdentity, roomID: string, messageIDs: readonly string[]): Promise<void> {
    await this.requireInRoom(client, roomID, messageIDs)
    const { messageChanges } = this.deps.repositories
    const now = this.deps.clock.now()
    await this.deps.database.transaction(async (trx) => {
      await messageChanges.star(
        trx,
        [...new Set(messageIDs)].map((id) => ({
          user_id: client.userID,
          message_id: id,
          room_id: roomID,
          created: now,
        })),
      )
      if ((await messageChanges.starCount(trx, client.userID)) > MAX_STARS_PER_USER)
        throw new AppError(
          'limitReached',
          `A user keeps at most ${MAX_STARS_PER_USER} starred messages`,
          'messageIDs',
        )
    })
    await this.tell(client, roomID, messageIDs, true)
  }

  async unstar(client: ClientIdentity, roomID: string, messageIDs: readonly string[]): Promise<void> {
    await this.deps.rooms.access(client, roomID)
    await this.deps.database.transaction((trx) =>
      this.deps.repositories.messageChanges.unstar(trx, client.userID, messageIDs),
    )
    await this.tell(client, roomID, messageIDs, false)
  }

  /** The IDs of the caller's starred messages in a room, most recently starred first. */
  async starredIDs(client: ClientIdentity, roomID: string): Promise<string[]> {
    await this.deps.rooms.access(client, roomID)
    const rows = await this.deps.repositories.messageChanges.starredOf(this.deps.database.db, {
      userID: client.userID,
      roomID,
      limit: MAX_STARS_PER_USER,
      offset: 0,
    })
    return rows.map((row) => row.id)
  }

  /** A page of the caller's starred messages, in a room or in every room they are in. */
  async starred(
    client: ClientIdentity,
    query: NumberedPage & { roomID?: string | undefined },
  ): Promise<MessageListPage> {
    if (query.roomID !== undefined) await this.deps.rooms.access(client, query.roomID)
    const { limit, offset } = pageBounds(query)
    const rows = await this.deps.repositories.messageChanges.starredOf(this.deps.database.db, {
      userID: client.userID,
      roomID: query.roomID,
      limit: limit + 1,
      offset,
    })
    const messages = await this.deps.changes.view(client, rows.slice(0, limit))
    return { messages, hasMore: rows.length > limit }
  }

  /** The caller must be in the room, and the messages in it. */
  private async requireInRoom(client: ClientIdentity, roomID: string, messageIDs: readonly string[]) {
    await this.deps.rooms.access(client, roomID)
    const rows = await this.deps.repositories.messages.findMessages(this.deps.database.db, messageIDs)
    const inRoom = new Set(rows.filter((row) => row.room_id === roomID).map((row) => row.id))
    const missing = messageIDs.find((id) => !inRoom.has(id))
    if (missing !== undefined)
      throw new AppError('notFound', `Message ${missing} not found in room ${roomID}`)
  }

  private tell(client: ClientIdentity, roomID: string, messageIDs: readonly string[], isStarred: boolean) {
    return this.deps.happenings.tell('message.starred', {
      userID: client.userID,
      exceptSessionID: client.sessionID,
      starred: { roomID, messageIDs: [...messageIDs], isStarred },
    })
  }
}
