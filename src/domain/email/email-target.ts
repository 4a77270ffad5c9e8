import type { Kysely } from 'kysely'
import type { Database } from '../../storage/database.js'
import type { Schema } from '../../storage/schema.js'
import type { Attempt } from '../delivery/attempt.js'
import type { DeliveryRow } from '../delivery/deliveries.repository.js'
import type { DeliveryRequest, DeliveryTarget } from '../delivery/target.js'
import type { TransactionHappenings } from '../happenings/catalogue.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import { MessageType } from '../messages/message-types.js'
import { type Senders, splitSender } from '../messages/senders.js'
import type { Repositories } from '../repositories.js'
import type { EmailChannel } from './email-channel.js'

/** What goes out by e-mail: what people write, not system notes or chatbots' widgets. */
const MAILED_TYPES: readonly number[] = [
  MessageType.text,
  MessageType.image,
  MessageType.video,
  MessageType.file,
]
const MINUTE = 60_000

type Deps = {
  database: Database
  repositories: Pick<Repositories, 'email' | 'messages' | 'cases' | 'users'>
}

/**
 * Agents' and chatbots' messages that are to go out by e-mail, recorded in the outbox in the
 * message's transaction: every one in an e-mail case; in an app or widget case, when the
 * organization's mailbox has continuity on and the visitor has an e-mail address, due after the
 * mailbox's `continuity_minutes` (the target then sends it only if the visitor has not been back).
 */
export class EmailDeliveries {
  constructor(private readonly deps: Deps & { happenings: Dispatcher }) {}

  async messageStored(trx: Kysely<Schema>, stored: TransactionHappenings['message.stored']): Promise<void> {
    const { case: row, message, now } = stored
    if (!row || !MAILED_TYPES.includes(message.type)) return
    const [kind] = splitSender(message.sender_id)
    if (kind !== 'agent' && kind !== 'chatbot') return
    const due = row.channel === 'email' ? now : await this.continuityDue(trx, row, now)
    if (due === undefined) return
    const { database, repositories, happenings } = this.deps
    const delivery = { id: database.ids.next(), caseID: row.id, messageID: message.id, seq: message.created }
    await repositories.email.recordEmailDelivery(trx, { ...delivery, now, due })
    await happenings.emit(trx, 'delivery.recorded', {})
  }

  /** When an app case's reply is due by e-mail; undefined when it never is. */
  private async continuityDue(
    trx: Kysely<Schema>,
    row: { organization_id: string; user_id: string },
    now: number,
  ) {
    const { repositories } = this.deps
    const mailbox = await repositories.email.findMailbox(trx, row.organization_id)
    if (!mailbox?.smtp_host || mailbox.continuity_minutes === 0) return undefined
    const [visitor] = await repositories.users.findUsers(trx, row.organization_id, [row.user_id])
    return visitor?.email ? now + mailbox.continuity_minutes * MINUTE : undefined
  }
}

/**
 * The outbox's e-mail target: builds the mail from the message when it is sent (the visitor's
 * address, the sender's name, the file) and hands it to the channel. A continuity reply the
 * visitor has read meanwhile, or who is online now, is settled without a mail.
 */
export class EmailTarget implements DeliveryTarget {
  constructor(
    private readonly deps: Deps & {
      senders: Senders
      channel: EmailChannel
      /** Presence is real-time's: the domain is given the question, not the module. */
      isOnline: (userIDs: readonly string[]) => Promise<Set<string>>
    },
  ) {}

  /** Nothing to sign: every delivery is ready (its message is read when sent). */
  async prepare(deliveries: readonly DeliveryRow[]): Promise<Map<string, DeliveryRequest>> {
    return new Map(
      deliveries.map((d) => [d.id, { id: d.id, url: 'smtp:', body: '', secretKey: '', headers: {} }]),
    )
  }

  async send(delivery: DeliveryRow): Promise<Attempt> {
    const { database, repositories, senders, channel } = this.deps
    const [message] = await repositories.messages.findMessages(database.db, [delivery.message_id ?? ''])
    const row = message && (await repositories.cases.findCaseByRoom(database.db, message.room_id))
    if (!message || !row || message.is_deleted) return { status: 'refused', error: 'the message is gone' }
    if (row.channel !== 'email' && (await this.visitorIsBack(row, message.created))) return { status: 204 }
    const [visitor] = await repositories.users.findUsers(database.db, row.organization_id, [row.user_id])
    if (!visitor?.email) return { status: 'refused', error: 'the visitor has no e-mail address' }
    const sender = (await senders.of(row.organization_id, [message.sender_id])).get(message.sender_id)
    const data = JSON.parse(message.data) as { fileID?: string; fileName?: string; mediaType?: string }
    const result = await channel.send({
      organizationID: row.organization_id,
      caseID: row.id,
      roomID: row.room_id,
      messageID: message.id,
      senderName: sender?.fullname ?? '',
      text: message.body,
      files: data.fileID
        ? [{ fileID: data.fileID, fileName: data.fileName ?? 'file', mediaType: data.mediaType ?? '' }]
        : [],
      to: { address: visitor.email, name: visitor.full_name },
    })
    if (result.outcome === 'sent') return { status: 250 }
    return { status: result.outcome === 'retry' ? 'network' : 'refused', error: result.error }
  }

  /** Whether an app visitor has read the reply, or has a live socket now. */
  private async visitorIsBack(row: { room_id: string; user_id: string }, created: number): Promise<boolean> {
    const { database, repositories, isOnline } = this.deps
    if ((await repositories.email.readUpTo(database.db, row.room_id, row.user_id)) >= created) return true
    return (await isOnline([row.user_id])).has(row.user_id)
  }

  async settled(): Promise<void> {}
}
