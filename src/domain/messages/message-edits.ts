import { AppError, paramError } from '../../errors/app-error.js'
import { indexedText } from '../../lib/search-words.js'
import type { Database } from '../../storage/database.js'
import { type Actor, requireAdminOf } from '../audit/actor.js'
import type { AuditLog } from '../audit/audit.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Repositories } from '../repositories.js'
import type { RoomsService } from '../rooms/rooms.service.js'
import type { Message } from './message.js'
import type { MessageActor, MessageChanges, MessageTarget } from './message-changes.js'
import { CLIENT_MESSAGE_TYPES } from './message-types.js'

/** An organization's rules for edits (docs/reference/client-api.md#edits). */
export interface MessageSettings {
  /** How long after sending its sender may edit a message, in seconds; 0: edits are off. */
  editWindowSeconds: number
  /** Whether each text an edit replaces is kept for the organization's admins. */
  keepEditedOriginals: boolean
}

/** A text an edit replaced (kept where the organization asks). */
export interface EditedOriginal {
  replaced: number
  body: string
  data: Record<string, unknown>
}

/** Most texts kept for one message, where the organization keeps them (docs/reference/quotas.md). */
export const MAX_KEPT_ORIGINALS = 100

/** The longest edit window an organization may choose: a year. */
export const MAX_EDIT_WINDOW_SECONDS = 365 * 24 * 3600

export interface EditInput extends MessageTarget {
  body: string
}

/**
 * Edits: a sender changes the text (or caption) of a message they sent, within the organization's
 * window. Everyone sees the new text and `edited`; the backend hears `message.updated`; where the
 * organization asks, the replaced text is kept.
 */
export class MessageEdits {
  constructor(
    private readonly deps: {
      database: Database
      repositories: Pick<Repositories, 'messages' | 'messageChanges' | 'search'>
      changes: MessageChanges
      rooms: RoomsService
      happenings: Dispatcher
      audit: AuditLog
    },
  ) {}

  async edit(client: MessageActor, input: EditInput): Promise<Message> {
    const settings = await this.settingsOf(client.organizationID)
    return this.deps.changes.change(client, input, async (trx, row, now) => {
      if (row.sender_id !== client.userID)
        throw new AppError('forbidden', `Message ${row.id} was sent by someone else`)
      if (row.is_deleted === 1) throw paramError('messageID', 'is a deleted message')
      if (!(CLIENT_MESSAGE_TYPES as readonly number[]).includes(row.type))
        throw paramError('messageID', 'is not a message one writes')
      if (now - row.created > settings.editWindowSeconds * 1000)
        throw new AppError(
          'conflict',
          `Message ${row.id} can no longer be edited (${settings.editWindowSeconds} s after sending)`,
        )
      if (settings.keepEditedOriginals) {
        if ((await this.deps.repositories.messageChanges.originalCount(trx, row.id)) >= MAX_KEPT_ORIGINALS)
          throw new AppError(
            'limitReached',
            `Message ${row.id} was edited ${MAX_KEPT_ORIGINALS} times, the most its kept texts hold`,
            'messageID',
          )
        await this.deps.repositories.messageChanges.keepOriginal(trx, {
          id: this.deps.database.ids.next(),
          message_id: row.id,
          replaced: now,
          body: row.body,
          data: row.data,
        })
      }
      const data = JSON.parse(row.data) as Record<string, unknown>
      // A caption kept in data too (as the family's SDKs keep it) follows the body.
      if (typeof data.caption === 'string') data.caption = input.body
      const edited = { ...row, body: input.body, data: JSON.stringify(data), edited: now, updated: now }
      await this.deps.repositories.messageChanges.setContent(trx, row.id, edited)
      await this.deps.repositories.search.reindexMessage(trx, {
        id: row.id,
        roomID: row.room_id,
        words: indexedText(input.body),
      })
      await this.deps.happenings.emit(trx, 'message.edited', {
        organizationID: client.organizationID,
        message: edited,
      })
    })
  }

  /** The organization's edit settings (anyone's sends read them). */
  async settingsOf(organizationID: string): Promise<MessageSettings> {
    const row = await this.deps.repositories.messageChanges.messageSettingsOf(
      this.deps.database.db,
      organizationID,
    )
    return {
      editWindowSeconds: row?.message_edit_window_s ?? 0,
      keepEditedOriginals: row?.keep_edited_originals === 1,
    }
  }

  async getSettings(actor: Actor, organizationID: string): Promise<MessageSettings> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    return this.settingsOf(organizationID)
  }

  async setSettings(
    actor: Actor,
    organizationID: string,
    settings: MessageSettings,
  ): Promise<MessageSettings> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    await this.deps.database.transaction(async (trx) => {
      await this.deps.repositories.messageChanges.setMessageSettings(trx, organizationID, {
        message_edit_window_s: settings.editWindowSeconds,
        keep_edited_originals: settings.keepEditedOriginals ? 1 : 0,
      })
      await this.deps.audit.record(
        actor,
        organizationID,
        'organization.set_message_settings',
        { ...settings },
        trx,
      )
    })
    return this.settingsOf(organizationID)
  }

  /** The texts edits replaced in a message of the organization, oldest first (admins). */
  async originals(actor: Actor, organizationID: string, messageID: string): Promise<EditedOriginal[]> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    const { database, repositories, rooms } = this.deps
    const [found] = await repositories.messages.findMessages(database.db, [messageID])
    const missing = new AppError('notFound', `Message ${messageID} not found`)
    if (!found) throw missing
    await rooms.inOrganization(organizationID, found.room_id).catch(() => {
      throw missing
    })
    const rows = await repositories.messageChanges.originalsOf(database.db, messageID)
    return rows.map((row) => ({ ...row, data: JSON.parse(row.data) as Record<string, unknown> }))
  }
}
