import type { Selectable } from 'kysely'
import { AppError, paramError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { MessagesTable } from '../../storage/schema.js'
import type { Events } from '../events/events.service.js'
import type { Files } from '../files/files.service.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { People } from '../people/people.js'
import type { RoomState } from '../people/room-state.js'
import type { Repositories } from '../repositories.js'
import { RoomType } from '../rooms/room.js'
import type { RoomAccess, RoomsService } from '../rooms/rooms.service.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import { type Message, messageContext, type SendInput, SYSTEM_SENDER_ID, toMessage } from './message.js'
import { checkContent } from './message-types.js'
import { OneStatementSend, onlyStored } from './one-statement-send.js'
import type { Senders } from './senders.js'
import { newMessage } from './store-message.js'
import { joinThread, requireThreadStart } from './thread-replies.js'

/**
 * Messages in rooms. A send is idempotent on (sender, localID); `created` strictly increases
 * within a room, so paging by it neither skips nor repeats. Every change is reported to the
 * dispatcher (what the outbox records, and who hears of it: every participant, all their devices).
 */
export class MessagesService {
  constructor(
    private readonly database: Database,
    private readonly repositories: Pick<Repositories, 'messages' | 'messageChanges' | 'rooms'>,
    private readonly clock: Clock,
    private readonly senders: Senders,
    private readonly rooms: RoomsService,
    private readonly happenings: Dispatcher,
    private readonly files: Files,
    private readonly events: Events,
    private readonly people: Pick<People, 'blocks' | 'roomStates'>,
  ) {
    this.oneStatement = new OneStatementSend(database, repositories, rooms, events, clock)
  }

  private readonly oneStatement: OneStatementSend

  async send(client: ClientIdentity, input: SendInput): Promise<Message> {
    const quick = await this.oneStatement.send(client, input)
    if (quick) return this.announceSent(client.organizationID, quick.access, quick.row, client.sessionID)
    // A recipient who blocked the sender takes nothing from them, nor a room opened by them.
    const { recipientUserID } = this.rooms.sendTarget(client, input)
    if (recipientUserID) await this.people.blocks.refuseBlocked(client.userID, recipientUserID)
    const access = await this.rooms.forSend(client, input)
    const sender = { organizationID: client.organizationID, senderID: client.userID }
    return this.sendIn(access, sender, input, client.sessionID)
  }

  /** A message of the organization's system sender (server API: an order-status notice, say). */
  async sendAsSystem(organizationID: string, input: SendInput & { roomID: string }): Promise<Message> {
    const access = await this.rooms.inOrganization(organizationID, input.roomID)
    // A case's room takes messages through the case (its state and the chatbot's outbox).
    if (access.room.type === RoomType.case) throw paramError('roomID', 'is a case room')
    return this.sendIn(access, { organizationID, senderID: SYSTEM_SENDER_ID }, input)
  }

  private async sendIn(
    access: RoomAccess,
    sender: { organizationID: string; senderID: string },
    input: SendInput,
    exceptSessionID?: string,
  ): Promise<Message> {
    const { senderID } = sender
    const content = checkContent({ type: input.type, body: input.body ?? '', data: input.data })
    if (input.replyTo) await this.requireInRoom(input.replyTo, access.room.id)
    const { threadID } = input
    if (threadID) await requireThreadStart(this.database.db, this.repositories, threadID, access.room.id)
    const id = this.database.ids.next()
    const message = newMessage(id, this.clock.now(), { roomID: access.room.id, senderID }, input, content)
    // Most messages carry no file, start no thread and go to no event endpoint: stored by one statement.
    const row =
      !threadID && (await onlyStored(this.events, sender.organizationID, content))
        ? await this.database.oneStatement((db) => this.repositories.messages.storeMessage(db, message))
        : await this.database.transaction(async (trx) => {
            const withFile = await this.files.contentWithFile(trx, sender, content)
            const stored = await this.repositories.messages.storeMessage(trx, { ...message, ...withFile })
            if (stored) {
              if (threadID)
                await joinThread(trx, this.repositories, { reply: stored, threadID, now: message.now })
              await this.files.attach(trx, { id: stored.id, roomID: access.room.id, content: withFile })
              const recipientIDs = access.participants.map((p) => p.user_id).filter((id) => id !== senderID)
              await this.happenings.emit(trx, 'message.stored', {
                organizationID: sender.organizationID,
                message: stored,
                recipientIDs,
                now: message.now,
              })
            }
            return stored
          })
    // A retry, or a concurrent send with the same localID stored it first: that one is the message.
    const found =
      row ??
      (await this.repositories.messages.findBySenderLocalID(
        this.database.db,
        senderID,
        input.localID,
        access.room.id,
      ))
    const sent = await this.announceSent(
      sender.organizationID,
      access,
      found as Selectable<MessagesTable>,
      exceptSessionID,
    )
    // The thread's first message counts one more reply: everyone sees the count.
    if (threadID && row)
      await this.announceUpdated(
        sender.organizationID,
        access,
        await this.repositories.messages.findMessages(this.database.db, [threadID]),
      )
    return sent
  }

  /**
   * Announces a sent message and answers with it. The sending device has it as its answer; every
   * other socket of every participant gets it. A retry announces again: the first announcement
   * may have died with its instance, and clients drop what they already have by messageID.
   */
  private async announceSent(
    organizationID: string,
    access: RoomAccess,
    row: Selectable<MessagesTable>,
    exceptSessionID?: string,
  ) {
    const [message] = await this.announceNew(organizationID, access, [row], { exceptSessionID })
    return message as Message
  }

  /** Read (or delivered) receipts: the user's marks move up to the newest of these messages. */
  async receipt(client: ClientIdentity, messageIDs: string[], kind: 'read' | 'delivered'): Promise<void> {
    // Nothing to mark (clients send an empty list when nothing arrived since their last receipt).
    if (messageIDs.length === 0) return
    const byRoom = await this.messagesByRoom(client, messageIDs)
    const states: RoomState[] = []
    await this.database.transaction(async (trx) => {
      // Reading a room ends the user's mark of it as unread.
      if (kind === 'read') {
        const roomIDs = byRoom.map(({ access }) => access.room.id)
        states.push(...(await this.people.roomStates.readIn(trx, client.userID, roomIDs)))
      }
      for (const { access, rows } of byRoom) {
        const upTo = Math.max(...rows.map((r) => r.created))
        await this.repositories.rooms.advanceReceipts(trx, {
          roomID: access.room.id,
          userID: client.userID,
          upTo,
          read: kind === 'read',
        })
        // A read mark that moves is news for the backend; a receipt for what was read already is not.
        const mark = access.participants.find((p) => p.user_id === client.userID)?.read_up_to ?? 0
        if (kind === 'read' && upTo > Number(mark))
          await this.happenings.emit(trx, 'message.read', {
            organizationID: client.organizationID,
            roomID: access.room.id,
            userID: client.userID,
            upTo,
          })
      }
    })
    await this.people.roomStates.announce(client.userID, states)
    await this.announceUpdates(client, byRoom)
  }

  /** Deletes the caller's own messages in a room (their content is erased; the message stays). */
  async delete(client: ClientIdentity, roomID: string, messageIDs: string[]): Promise<void> {
    const byRoom = await this.messagesByRoom(client, messageIDs)
    const rows = byRoom.flatMap((group) => group.rows)
    const elsewhere = rows.find((row) => row.room_id !== roomID)
    if (elsewhere) throw new AppError('notFound', `Message ${elsewhere.id} not found in room ${roomID}`)
    const foreign = rows.find((row) => row.sender_id !== client.userID)
    if (foreign) throw new AppError('forbidden', `Message ${foreign.id} was sent by someone else`)
    await this.database.transaction((trx) =>
      this.repositories.messages.markDeleted(trx, messageIDs, this.clock.now()),
    )
    await this.files.deleteOfMessages(messageIDs)
    await this.announceUpdates(client, byRoom)
  }

  /** The messages, grouped by room; each must exist in a room the caller is in. */
  private async messagesByRoom(client: ClientIdentity, messageIDs: string[]) {
    const rows = await this.repositories.messages.findMessages(this.database.db, messageIDs)
    const found = new Set(rows.map((row) => row.id))
    const missing = messageIDs.find((id) => !found.has(id))
    if (missing !== undefined) throw new AppError('notFound', `Message ${missing} not found`)
    const groups: { access: RoomAccess; rows: Selectable<MessagesTable>[] }[] = []
    for (const roomID of new Set(rows.map((row) => row.room_id))) {
      const access = await this.rooms.access(client, roomID).catch((error: unknown) => {
        // A message of a room one cannot see does not exist for them.
        if (error instanceof AppError)
          throw new AppError('notFound', `Message ${rows.find((r) => r.room_id === roomID)?.id} not found`)
        throw error
      })
      groups.push({ access, rows: rows.filter((row) => row.room_id === roomID) })
    }
    return groups
  }

  /** Re-reads the messages and tells each room's participants how they look now. */
  private async announceUpdates(
    client: ClientIdentity,
    byRoom: { access: RoomAccess; rows: Selectable<MessagesTable>[] }[],
  ) {
    for (const { access, rows } of byRoom) {
      const fresh = await this.rooms.access(client, access.room.id, { participantOnly: false })
      const current = await this.repositories.messages.findMessages(
        this.database.db,
        rows.map((r) => r.id),
      )
      await this.announceUpdated(client.organizationID, fresh, current)
    }
  }

  /**
   * Messages whose state changed (`access` as it is now): for the room's participants and those who
   * follow it (a case's agents).
   */
  async announceUpdated(
    organizationID: string,
    access: RoomAccess,
    rows: Selectable<MessagesTable>[],
  ): Promise<Message[]> {
    if (rows.length === 0) return []
    const messages = await this.toMessages(organizationID, access, rows)
    const { room } = access
    const all = this.audienceOf(access)
    for (const group of await this.people.blocks.audiences(room.type, messages, all.userIDs))
      await this.happenings.tell('message.updated', {
        messages: group.messages,
        audience: { ...all, userIDs: group.userIDs },
        followersOfRoom: room.type === RoomType.case ? room.id : undefined,
      })
    return messages
  }

  /**
   * Announces messages just stored (by this module or by cases) to the room's participants; in a
   * group room, marked for those who blocked the sender.
   */
  async announceNew(
    organizationID: string,
    access: RoomAccess,
    rows: Selectable<MessagesTable>[],
    audience: { exceptSessionID?: string | undefined; alsoUserIDs?: string[] } = {},
  ): Promise<Message[]> {
    const messages = await this.toMessages(organizationID, access, rows)
    const all = this.audienceOf(access, audience.exceptSessionID, audience.alsoUserIDs)
    for (const group of await this.people.blocks.audiences(access.room.type, messages, all.userIDs))
      await this.happenings.tell('message.sent', {
        messages: group.messages,
        audience: { ...all, userIDs: group.userIDs },
      })
    return messages
  }

  /**
   * The room's participants, those who follow it without being in it (a case's agents), and the
   * sockets watching it (agents viewing the case).
   */
  private audienceOf(access: RoomAccess, exceptSessionID?: string, alsoUserIDs: string[] = []) {
    return {
      userIDs: [...access.participants.map((p) => p.user_id), ...alsoUserIDs],
      ...(access.room.type === RoomType.case ? { watchedRoomIDs: [access.room.id] } : {}),
      ...(exceptSessionID ? { exceptSessionID } : {}),
    }
  }

  private async requireInRoom(messageID: string, roomID: string): Promise<void> {
    const [row] = await this.repositories.messages.findMessages(this.database.db, [messageID])
    if (!row || row.room_id !== roomID) throw paramError('replyTo', 'is invalid')
  }

  async toMessages(organizationID: string, access: RoomAccess, rows: Selectable<MessagesTable>[]) {
    const senders = await this.senders.of(
      organizationID,
      rows.map((row) => row.sender_id),
      access.users,
    )
    const context = messageContext(access.room, access.participants, senders, (data) =>
      this.files.withLinks(data),
    )
    return rows.map((row) => toMessage(row, context))
  }
}
