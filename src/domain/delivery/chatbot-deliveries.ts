import type { Kysely } from 'kysely'
import type { Database } from '../../storage/database.js'
import type { Schema } from '../../storage/schema.js'
import type { TransactionHappenings } from '../happenings/catalogue.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Repositories } from '../repositories.js'

/**
 * A visitor's message in a case its chatbot has goes to the chatbot: a delivery recorded in the
 * message's transaction (docs/reference/chatbot-webhook.md), in the case's order.
 */
export class ChatbotDeliveries {
  constructor(
    private readonly deps: {
      database: Database
      repositories: Pick<Repositories, 'deliveries'>
      happenings: Dispatcher
    },
  ) {}

  async messageStored(trx: Kysely<Schema>, stored: TransactionHappenings['message.stored']): Promise<void> {
    const { case: row, message, now } = stored
    if (!row || message.sender_id !== row.user_id || row.status !== 'bot' || !row.chatbot_id) return
    await this.deps.repositories.deliveries.recordDelivery(trx, {
      id: this.deps.database.ids.next(),
      caseID: row.id,
      chatbotID: row.chatbot_id,
      messageID: message.id,
      seq: message.created,
      now,
    })
    await this.deps.happenings.emit(trx, 'delivery.recorded', {})
  }
}
