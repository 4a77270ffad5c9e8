import type { Kysely } from 'kysely'
import { newID } from '../../lib/ids.js'
import type { Schema } from '../../storage/schema.js'

/**
 * Records that a visitor message must reach the case's chatbot: the outbox row, written in the
 * same transaction as the message, so a crash loses nothing.
 */
export const recordDelivery = (
  db: Kysely<Schema>,
  delivery: { caseID: string; chatbotID: string; messageID: string; now: number },
) =>
  db
    .insertInto('deliveries')
    .values({
      id: newID(),
      case_id: delivery.caseID,
      chatbot_id: delivery.chatbotID,
      message_id: delivery.messageID,
      status: 'pending',
      next_attempt_at: delivery.now,
      created: delivery.now,
      updated: delivery.now,
    })
    .execute()
