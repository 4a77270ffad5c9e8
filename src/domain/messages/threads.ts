import { paramError } from '../../errors/app-error.js'
import type { Database } from '../../storage/database.js'
import type { Repositories } from '../repositories.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import type { Page } from './message.js'
import type { MessageChanges } from './message-changes.js'

export interface ThreadPageQuery {
  threadID: string
  roomID?: string | undefined
  /** Replies before this `created` (0: the latest), or after `minCreated` when that is given. */
  maxCreated: number
  minCreated?: number | undefined
  limit: number
}

/**
 * Threads (docs/reference/client-api.md#threads): a reply sent with `threadID` is a message of
 * the room like any other (history, receipts, unread counts and resync are the room's), and also
 * of its thread, whose first message counts its replies (`replyCount`). A thread's history pages
 * like a room's, by `created`.
 */
export class Threads {
  constructor(
    private readonly deps: {
      database: Database
      repositories: Pick<Repositories, 'messageChanges'>
      changes: MessageChanges
    },
  ) {}

  async list(client: ClientIdentity, query: ThreadPageQuery): Promise<Page> {
    const { row } = await this.deps.changes.find(client, { messageID: query.threadID, roomID: query.roomID })
    if (row.thread_id !== null) throw paramError('threadID', 'is a reply in a thread, not its first message')
    const after = query.minCreated !== undefined && query.minCreated > 0
    const rows = await this.deps.repositories.messageChanges.threadPage(this.deps.database.db, {
      threadID: row.id,
      direction: after ? 'after' : 'before',
      bound: after ? (query.minCreated as number) : query.maxCreated || Number.MAX_SAFE_INTEGER,
      limit: query.limit + 1,
    })
    const replies = rows.slice(0, query.limit)
    if (!after) replies.reverse()
    return { messages: await this.deps.changes.view(client, replies), hasMore: rows.length > query.limit }
  }
}
