import type { Kysely } from 'kysely'
import type { Schema } from '../../storage/schema.js'
import { MessageType } from '../messages/message-types.js'

/** What a room's shared content pane lists, by kind: media, files and links. */
export const SHARED_TYPES = {
  media: [MessageType.image, MessageType.video],
  files: [MessageType.file, MessageType.voice],
  links: [MessageType.link],
} as const

/**
 * Up to `limit` messages of the room that carry media, a file or a link, `created` before `before`,
 * newest first; deleted ones are left out (their content is gone).
 */
export const sharedPage = (db: Kysely<Schema>, page: { roomID: string; before: number; limit: number }) =>
  db
    .selectFrom('messages')
    .selectAll()
    .where('room_id', '=', page.roomID)
    .where('created', '<', page.before)
    .where('type', 'in', Object.values(SHARED_TYPES).flat())
    .where('is_deleted', '=', 0)
    .orderBy('created', 'desc')
    .limit(page.limit)
    .execute()
