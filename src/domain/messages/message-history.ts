import type { Database } from '../../storage/database.js'
import type { Files } from '../files/files.service.js'
import type { Blocks } from '../people/blocks.js'
import type { Repositories } from '../repositories.js'
import { clearedUpTo } from '../rooms/room.js'
import type { RoomAccess, RoomsService } from '../rooms/rooms.service.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import type { Page } from './message.js'
import type { MessagesService } from './messages.service.js'
import { PageCache } from './page-cache.js'

type ListPage = Parameters<Repositories['messages']['listPage']>[1]

/**
 * A room's history, a page at a time: by `created`, which strictly increases within a room, so
 * paging neither skips nor repeats. Pages are kept once made (page-cache.ts).
 */
export class MessageHistory {
  private readonly pages = new PageCache()

  constructor(
    private readonly database: Database,
    private readonly repositories: Pick<Repositories, 'messages'>,
    private readonly rooms: RoomsService,
    private readonly files: Files,
    private readonly messages: Pick<MessagesService, 'toMessages'>,
    private readonly blocks: Pick<Blocks, 'markedFor'>,
  ) {}

  /** Up to `limit` messages before `maxCreated` (0: the latest), in order (oldest first). */
  listBefore(client: ClientIdentity, roomID: string, maxCreated: number, limit: number): Promise<Page> {
    const bound = maxCreated === 0 ? Number.MAX_SAFE_INTEGER : maxCreated
    return this.page(client, { roomID, direction: 'before', bound, limit })
  }

  /** Up to `limit` messages after `minCreated`, in order (oldest first). */
  listAfter(client: ClientIdentity, roomID: string, minCreated: number, limit: number): Promise<Page> {
    return this.page(client, { roomID, direction: 'after', bound: minCreated, limit })
  }

  /** The organization's room's messages before `maxCreated` (0: the latest), oldest first (server API). */
  async listIn(organizationID: string, roomID: string, maxCreated: number, limit: number): Promise<Page> {
    const access = await this.rooms.inOrganization(organizationID, roomID)
    const bound = maxCreated === 0 ? Number.MAX_SAFE_INTEGER : maxCreated
    return this.pageOf(organizationID, access, { roomID, direction: 'before', bound, limit })
  }

  /** The caller's page: without what they cleared (pages are kept for everyone, so cut after). */
  private async page(client: ClientIdentity, page: ListPage): Promise<Page> {
    const access = await this.rooms.access(client, page.roomID)
    const made = await this.pageOf(client.organizationID, access, page)
    const cleared = clearedUpTo(access.participants, client.userID)
    const kept = made.messages.filter((message) => message.created > cleared)
    // Before the first message left there is only what was cleared.
    const hasMore =
      kept.length === made.messages.length ? made.hasMore : page.direction === 'after' && made.hasMore
    // Pages are shared by all readers: the marks of one reader's blocks go on after.
    return { messages: await this.blocks.markedFor(client.userID, kept), hasMore }
  }

  private async pageOf(organizationID: string, access: RoomAccess, page: ListPage): Promise<Page> {
    const made = () => this.makePage(organizationID, access, page)
    return this.pages.read(page, access, this.files.linkEpoch(), made)
  }

  private async makePage(organizationID: string, access: RoomAccess, page: ListPage): Promise<Page> {
    const rows = await this.repositories.messages.listPage(this.database.db, {
      ...page,
      limit: page.limit + 1,
    })
    const messages = rows.slice(0, page.limit)
    if (page.direction === 'before') messages.reverse()
    return {
      messages: await this.messages.toMessages(organizationID, access, messages),
      hasMore: rows.length > page.limit,
    }
  }
}
