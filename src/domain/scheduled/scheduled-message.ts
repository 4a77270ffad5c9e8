import type { Selectable } from 'kysely'
import type { MessagesTable } from '../../storage/schema.js'
import type { Message } from '../messages/message.js'
import type { ScheduledRow } from './scheduled.repository.js'

/** How far ahead a message may be scheduled (docs/reference/limits.md). */
export const MAX_SCHEDULE_AHEAD_MS = 365 * 24 * 3_600_000

/** Pending scheduled messages one user may have in one room (docs/reference/limits.md). */
export const MAX_PENDING_PER_ROOM = 100

/** A scheduled message as the client API shows it (docs/reference/client-api.md#scheduled-messages). */
export interface ScheduledMessage {
  id: string
  roomID: string
  scheduledTime: number
  /** pending until sent (`messageID` then names the message), cancelled, or dropped. */
  status: ScheduledRow['status']
  messageID: string | null
  created: number
  updated: number
  /** The message as it will be sent (`messageID` empty, `created` its scheduled time). */
  message: Message
}

/** The row a scheduled message's preview is made from, as if it were a message sent at its time. */
export function asMessageRow(row: ScheduledRow): Selectable<MessagesTable> {
  const {
    organization_id: _,
    scheduled_time,
    status: _status,
    lease_until: _lease,
    message_id: _id,
    ...message
  } = row
  const unchanged = { edited: 0, reactions: '[]', thread_id: null, reply_count: 0, is_pinned: 0, revised: 0 }
  return { ...message, ...unchanged, id: '', created: scheduled_time, is_deleted: 0 }
}

export const toScheduledMessage = (row: ScheduledRow, message: Message): ScheduledMessage => ({
  id: row.id,
  roomID: row.room_id,
  scheduledTime: row.scheduled_time,
  status: row.status,
  messageID: row.message_id,
  created: row.created,
  updated: row.updated,
  message,
})
