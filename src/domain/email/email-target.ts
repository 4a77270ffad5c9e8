import type { Kysely } from 'kysely'
import type { Database } from '../../storage/database.js'
import type { Schema } from '../../storage/schema.js'
import type { Attempt } from '../delivery/attempt.js'
import type { DeliveryRow } from '../delivery/deliveries.repository.js'
import type { DeliveryRequest, DeliveryTarget } from '../delivery/target.js'
import type { TransactionHappenings } from '../happenings/catalogue.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import { MessageType } from '../messages/message-types.js'
import type { Senders } from '../messages/senders.js'
import { splitSender } from '../messages/senders.js'
import type { Repositories } from '../repositories.js'
import type { EmailChannel } from './email-channel.js'

/** What goes out by e-mail: what people write, not system notes or chatbots' widgets. */
const MAILED_TYPES: readonly number[] = [
  MessageType.text,
  MessageType.image,
  MessageType.video,
  MessageType.file,
]

export interface EmailDeliveriesDependencies {
  database: Database
  repositories: Pick<Repositories, 'email' | 'messages' | 'cases' | 'users'>
  happenings: Dispatcher
  senders: Senders
  channel: EmailChannel
}

/**
 * Agents' and chatbots' messages in e-mail cases go out by e-mail through the outbox: recorded in
 * the message's transaction (`messageStored`), sent by the delivery worker (the target's `send`),
 * retried and in the case's order like every delivery.
 */
export class EmailDeliveries implements DeliveryTarget {
  constructor(private readonly deps: EmailDeliveriesDependencies) {}

  async messageStored(trx: Kysely<Schema>, stored: TransactionHappenings['message.stored']): Promise<void> {
    const { case: row, message, now } = stored
    if (!row || row.channel !== 'email' || !MAILED_TYPES.includes(message.type)) return
    const [kind] = splitSender(message.sender_id)
    if (kind !== 'agent' && kind !== 'chatbot') return
    const id = this.deps.database.ids.next()
    await this.deps.repositories.email.recordEmailDelivery(trx, {
      id,
      caseID: row.id,
      messageID: message.id,
      seq: message.created,
      now,
    })
    await this.deps.happenings.emit(trx, 'delivery.recorded', {})
  }

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

  async settled(): Promise<void> {}
}
