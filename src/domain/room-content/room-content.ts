import { AppError, paramError } from '../../errors/app-error.js'
import type { Database } from '../../storage/database.js'
import type { Message } from '../messages/message.js'
import type { MessagesService } from '../messages/messages.service.js'
import type { Senders } from '../messages/senders.js'
import type { Repositories } from '../repositories.js'
import { RoomType } from '../rooms/room.js'
import type { RoomsService } from '../rooms/rooms.service.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import type { User } from '../users/user.js'
import { SHARED_TYPES } from './room-content.repository.js'

/** Who has read a message, and who has it delivered but not read yet (docs/reference/client-api.md). */
export interface ReadDetails {
  message: Message
  readBy: User[]
  deliveredTo: User[]
  readCount: number
  deliveredCount: number
}

/** A page of a room's shared content, each kind newest first. */
export interface SharedContent {
  media: Message[]
  files: Message[]
  links: Message[]
  hasMore: boolean
}

/**
 * What a room holds besides its history: who read a message (from the participants' read and
 * delivered marks, which are high-water marks: a participant has read a message when their mark
 * reached its `created`), and its media, files and links for a "shared content" pane.
 */
export class RoomContent {
  constructor(
    private readonly deps: {
      database: Database
      repositories: Pick<Repositories, 'messages' | 'roomContent'>
      rooms: RoomsService
      senders: Senders
      messages: Pick<MessagesService, 'toMessages'>
    },
  ) {}

  /** Read details of a message the caller sent, in a group or personal room they are in. */
  async readDetails(client: ClientIdentity, messageID: string): Promise<ReadDetails> {
    const { row, access } = await this.ownMessage(client, messageID)
    const others = access.participants.filter((p) => p.user_id !== client.userID)
    const read = others.filter((p) => Number(p.read_up_to) >= row.created)
    const delivered = others.filter((p) => Number(p.delivered_up_to) >= row.created)
    const deliveredOnly = delivered.filter((p) => !read.includes(p))
    const users = await this.deps.senders.of(
      client.organizationID,
      [...read, ...deliveredOnly].map((p) => p.user_id),
      access.users,
    )
    const named = (list: typeof others) => list.flatMap((p) => users.get(p.user_id) ?? [])
    const [message] = await this.deps.messages.toMessages(client.organizationID, access, [row])
    return {
      message: message as Message,
      readBy: named(read),
      deliveredTo: named(deliveredOnly),
      readCount: read.length,
      deliveredCount: delivered.length,
    }
  }

  private async ownMessage(client: ClientIdentity, messageID: string) {
    const { database, repositories, rooms } = this.deps
    const [row] = await repositories.messages.findMessages(database.db, [messageID])
    if (!row) throw new AppError('notFound', `Message ${messageID} not found`)
    const access = await rooms.access(client, row.room_id).catch((error: unknown) => {
      if (error instanceof AppError) throw new AppError('notFound', `Message ${messageID} not found`)
      throw error
    })
    if (access.room.type === RoomType.case) throw paramError('messageID', 'is in a case room')
    if (row.sender_id !== client.userID)
      throw new AppError('forbidden', `Message ${messageID} was sent by someone else`)
    return { row, access }
  }

  /** Up to `limit` messages with media, files or links, before `maxCreated` (0: the latest). */
  async sharedContent(
    client: ClientIdentity,
    page: { roomID: string; maxCreated: number; limit: number },
  ): Promise<SharedContent> {
    const access = await this.deps.rooms.access(client, page.roomID)
    const rows = await this.deps.repositories.roomContent.sharedPage(this.deps.database.db, {
      roomID: page.roomID,
      before: page.maxCreated === 0 ? Number.MAX_SAFE_INTEGER : page.maxCreated,
      limit: page.limit + 1,
    })
    const messages = await this.deps.messages.toMessages(
      client.organizationID,
      access,
      rows.slice(0, page.limit),
    )
    const of = (types: readonly number[]) => messages.filter((m) => types.includes(m.type))
    return {
      media: of(SHARED_TYPES.media),
      files: of(SHARED_TYPES.files),
      links: of(SHARED_TYPES.links),
      hasMore: rows.length > page.limit,
    }
  }
}
