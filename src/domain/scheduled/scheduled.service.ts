import { AppError, paramError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Message, SendInput } from '../messages/message.js'
import { checkContent, fileIDOf } from '../messages/message-types.js'
import type { MessagesService } from '../messages/messages.service.js'
import type { Repositories } from '../repositories.js'
import type { RoomAccess, RoomsService } from '../rooms/rooms.service.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import type { ScheduledRow } from './scheduled.repository.js'
import {
  asMessageRow,
  MAX_PENDING_PER_ROOM,
  MAX_SCHEDULE_AHEAD_MS,
  type ScheduledMessage,
  toScheduledMessage,
} from './scheduled-message.js'

/** How long an instance holds a scheduled message it is sending before another may take it. */
export const SEND_LEASE_MS = 10_000

/**
 * Messages a user schedules for later: kept until their time, then sent as the user by the
 * scheduler (ScheduledSender) through the ordinary send. Exactly once: an instance leases a due
 * one before sending it, and the send is idempotent on the scheduled message's localID, so a send
 * that an instance died in the middle of and another retries stores nothing new. Each change is
 * told to the sender's devices (`scheduled/update`).
 */
export class ScheduledMessages {
  constructor(
    private readonly deps: {
      database: Database
      clock: Clock
      repositories: Pick<Repositories, 'scheduled'>
      rooms: RoomsService
      messages: Pick<MessagesService, 'send' | 'toMessages'>
      happenings: Dispatcher
    },
  ) {}

  private get queries() {
    return this.deps.repositories.scheduled
  }

  async create(client: ClientIdentity, input: SendInput, scheduledTime: number): Promise<ScheduledMessage> {
    const { database, clock } = this.deps
    const now = clock.now()
    this.checkTime(scheduledTime, now)
    const content = checkContent({ type: input.type, body: input.body ?? '', data: input.data })
    // Uploads not sent within a day are swept: a scheduled message links to files by URL.
    if (fileIDOf(content) !== undefined) throw paramError('data.fileID', 'cannot be scheduled')
    const access = await this.deps.rooms.forSend(client, input)
    const roomID = access.room.id
    if ((await this.queries.countPendingIn(database.db, client.userID, roomID)) >= MAX_PENDING_PER_ROOM)
      throw paramError('scheduledTime', `is one too many: at most ${MAX_PENDING_PER_ROOM} pending a room`)
    const row = {
      id: database.ids.next(),
      organization_id: client.organizationID,
      room_id: roomID,
      sender_id: client.userID,
      local_id: input.localID,
      type: content.type,
      body: content.body,
      data: JSON.stringify(content.data),
      quote: JSON.stringify(input.quote ?? { title: '', content: '', imageURL: '' }),
      reply_to: input.replyTo ?? null,
      scheduled_time: scheduledTime,
      status: 'pending' as const,
      created: now,
      updated: now,
    }
    // A retry of the same create (same localID) answers what the first stored.
    const stored =
      (await database.oneStatement((db) => this.queries.insertScheduled(db, row))) ??
      (await this.queries.findScheduledByLocalID(database.db, client.userID, input.localID, roomID))
    return this.announce(client.organizationID, access, stored as ScheduledRow)
  }

  editContent(client: ClientIdentity, id: string, body: string): Promise<ScheduledMessage> {
    return this.change(client, id, (row) => {
      const content = checkContent({ type: row.type, body, data: JSON.parse(row.data) })
      return { body: content.body }
    })
  }

  editTime(client: ClientIdentity, id: string, scheduledTime: number): Promise<ScheduledMessage> {
    this.checkTime(scheduledTime, this.deps.clock.now())
    return this.change(client, id, () => ({ scheduled_time: scheduledTime }))
  }

  /** Cancels the caller's pending scheduled messages in the room. */
  async cancel(client: ClientIdentity, roomID: string, ids: string[]): Promise<ScheduledMessage[]> {
    const cancelled: ScheduledMessage[] = []
    for (const id of ids)
      cancelled.push(await this.change(client, id, () => ({ status: 'cancelled' }), roomID))
    return cancelled
  }

  /** Sends the caller's pending scheduled messages in the room now, as the scheduler would. */
  async sendNow(client: ClientIdentity, roomID: string, ids: string[]): Promise<Message[]> {
    for (const id of ids) await this.own(client, id, roomID)
    const claimed = await this.claim({ ids, limit: ids.length })
    const sent: Message[] = []
    for (const row of claimed) {
      const message = await this.sendClaimed(row)
      if (message) sent.push(message)
    }
    return sent
  }

  /** The caller's pending scheduled messages in a room, soonest first. */
  async list(client: ClientIdentity, roomID: string): Promise<ScheduledMessage[]> {
    const access = await this.deps.rooms.access(client, roomID)
    const rows = await this.queries.pendingOf(
      this.deps.database.db,
      client.userID,
      roomID,
      MAX_PENDING_PER_ROOM,
    )
    return this.toScheduled(client.organizationID, access, rows)
  }

  /** Leases scheduled messages due now (or those of `ids`, due or not), for this instance to send. */
  async claim(which: { limit: number; ids?: readonly string[] }): Promise<ScheduledRow[]> {
    const { database, clock } = this.deps
    const now = clock.now()
    // Most rounds find nothing due: they read, and take no write transaction.
    if (!which.ids && !(await this.queries.anyDue(database.db, now))) return []
    return database.transaction((trx) =>
      this.queries.claimScheduled(trx, {
        ...which,
        now,
        leaseUntil: now + SEND_LEASE_MS,
        dialect: database.dialect,
      }),
    )
  }

  /**
   * Sends a claimed scheduled message as its sender, unless the sender may no longer send to the
   * room (deactivated, deleted, removed from it): then it is dropped. Answers the message sent.
   */
  async sendClaimed(row: ScheduledRow): Promise<Message | undefined> {
    const { database, clock } = this.deps
    const sender = { userID: row.sender_id, organizationID: row.organization_id, sessionID: '' }
    let message: Message | undefined
    if (await this.queries.senderMaySend(database.db, row.sender_id, row.room_id)) {
      message = await this.deps.messages.send(sender, this.sendInput(row)).catch((error: unknown) => {
        // Refused for good (the recipient was deleted, the quoted message is gone): dropped.
        if (error instanceof AppError && error.kind !== 'unavailable') return undefined
        throw error
      })
    }
    const status: 'sent' | 'dropped' = message ? 'sent' : 'dropped'
    const now = clock.now()
    await database.oneStatement((db) =>
      this.queries.settleScheduled(db, row.id, { status, messageID: message?.messageID ?? null, now }),
    )
    const settled = {
      ...row,
      status,
      message_id: message?.messageID ?? null,
      lease_until: null,
      updated: now,
    }
    const access = await this.deps.rooms.snapshot(row.room_id).catch(() => undefined)
    if (access) await this.announce(row.organization_id, access, settled)
    return message
  }

  private sendInput(row: ScheduledRow): SendInput {
    return {
      roomID: row.room_id,
      localID: row.local_id,
      type: row.type,
      body: row.body,
      data: JSON.parse(row.data) as Record<string, unknown>,
      quote: JSON.parse(row.quote) as SendInput['quote'],
      replyTo: row.reply_to ?? undefined,
    }
  }

  private checkTime(scheduledTime: number, now: number): void {
    if (scheduledTime <= now) throw paramError('scheduledTime', 'must be in the future')
    if (scheduledTime > now + MAX_SCHEDULE_AHEAD_MS)
      throw paramError('scheduledTime', 'must be within a year from now')
  }

  /** The caller's scheduled message (in `roomID`, if given); another's does not exist for them. */
  private async own(client: ClientIdentity, id: string, roomID?: string): Promise<ScheduledRow> {
    const [row] = await this.queries.findScheduled(this.deps.database.db, [id])
    if (!row || row.sender_id !== client.userID || (roomID !== undefined && row.room_id !== roomID))
      throw new AppError('notFound', `Scheduled message ${id} not found`)
    return row
  }

  /** Changes a pending scheduled message of the caller's that is not being sent right now. */
  private async change(
    client: ClientIdentity,
    id: string,
    make: (row: ScheduledRow) => Partial<Pick<ScheduledRow, 'body' | 'scheduled_time' | 'status'>>,
    roomID?: string,
  ): Promise<ScheduledMessage> {
    const row = await this.own(client, id, roomID)
    if (row.status !== 'pending') throw new AppError('conflict', `Scheduled message ${id} is ${row.status}`)
    const change = make(row)
    const now = this.deps.clock.now()
    const changed = await this.deps.database.oneStatement((db) =>
      this.queries.changePending(db, id, now, change),
    )
    if (!changed) throw new AppError('conflict', `Scheduled message ${id} is being sent`)
    const access = await this.deps.rooms.access(client, row.room_id, { participantOnly: false })
    return this.announce(client.organizationID, access, { ...row, ...change, updated: now })
  }

  /** Tells the sender's devices how the scheduled message is now, and answers with it. */
  private async announce(organizationID: string, access: RoomAccess, row: ScheduledRow) {
    const [scheduled] = await this.toScheduled(organizationID, access, [row])
    const item = scheduled as ScheduledMessage
    await this.deps.happenings.tell('scheduled.updated', { userID: row.sender_id, scheduled: item })
    return item
  }

  private async toScheduled(organizationID: string, access: RoomAccess, rows: ScheduledRow[]) {
    const messages = await this.deps.messages.toMessages(organizationID, access, rows.map(asMessageRow))
    return rows.map((row, i) => toScheduledMessage(row, messages[i] as Message))
  }
}
