import type { Kysely } from 'kysely'
import type { BaseLogger } from 'pino'
import { logFailure } from '../../errors/faults.js'
import type { Database } from '../../storage/database.js'
import type { Schema } from '../../storage/schema.js'
import type { ChatbotCases } from '../cases/chatbot-cases.js'
import type { ChatbotsService } from '../chatbots/chatbots.service.js'
import type { Files } from '../files/files.service.js'
import type { Repositories } from '../repositories.js'
import type { DeliveryRow } from './deliveries.repository.js'
import { deliveryBody } from './payload.js'
import {
  type DeliveryMeter,
  type DeliveryRequest,
  type DeliveryTarget,
  type Settlement,
  signedRequest,
} from './target.js'

/**
 * Deliveries to chatbots: a visitor's message (its body built per attempt, with file links good
 * for a day), or an event of the chatbot's case it opted in to (its body stored). A message that
 * fails for good, or waits longer than `handoverAfterMs`, hands the case to agents.
 */
export class ChatbotTarget implements DeliveryTarget {
  constructor(
    private readonly deps: {
      database: Database
      chatbots: ChatbotsService
      cases: ChatbotCases
      files: Pick<Files, 'withLinks'>
      repositories: Pick<Repositories, 'deliveries'>
      meter: DeliveryMeter
      log: Pick<BaseLogger, 'warn' | 'error'>
      handoverAfterMs: number
    },
  ) {}

  private get outbox() {
    return this.deps.repositories.deliveries
  }

  async prepare(deliveries: readonly DeliveryRow[]): Promise<Map<string, DeliveryRequest>> {
    const contexts = new Map(
      (
        await this.outbox.deliveryContexts(
          this.deps.database.db,
          deliveries.filter((d) => d.message_id !== null).map((d) => d.id),
        )
      ).map((c) => [c.id, c]),
    )
    const requests = new Map<string, DeliveryRequest>()
    for (const delivery of deliveries) {
      const endpoint = delivery.chatbot_id
        ? await this.deps.chatbots.endpoint(delivery.chatbot_id)
        : undefined
      const context = contexts.get(delivery.id)
      const body =
        delivery.payload ??
        (context && deliveryBody(context, (data) => this.deps.files.withLinks(data, 'day')))
      if (!endpoint || body === undefined) continue
      requests.set(
        delivery.id,
        signedRequest(delivery.id, endpoint.url, endpoint.secretKey, body, {
          'x-secret-key': endpoint.secretKey,
        }),
      )
    }
    return requests
  }

  /** A message that failed for good: the case's next ones cannot be claimed before the handover. */
  async failing(trx: Kysely<Schema>, delivery: DeliveryRow, now: number): Promise<void> {
    if (delivery.message_id !== null && delivery.case_id !== null)
      await this.outbox.abandonPending(trx, delivery.case_id, now)
  }

  async settled(delivery: DeliveryRow, settlement: Settlement): Promise<void> {
    const { meter } = this.deps
    if (settlement.outcome === 'sent') return meter.sent()
    const message = delivery.message_id !== null
    const nextAttempt =
      settlement.outcome === 'retry' ? new Date(settlement.nextAttempt).toISOString() : 'failed for good'
    if (settlement.outcome === 'retry') meter.retried()
    else meter.failed()
    // At warn: otherwise a dead bot shows only in a counter. What the operator needs to find the
    // bot's fault, and nothing the bot was sent (no body, secret or signature).
    this.deps.log.warn(
      {
        caseID: delivery.case_id,
        deliveryID: delivery.id,
        chatbotID: delivery.chatbot_id,
        ...(message ? {} : { eventType: delivery.event_type }),
        attempt: delivery.attempts + 1,
        ...settlement.failure,
        nextAttempt,
      },
      settlement.outcome === 'retry'
        ? 'delivery to the chatbot failed; it will be retried'
        : message
          ? 'delivery to the chatbot failed for good; the case goes to agents'
          : 'delivery to the chatbot failed for good',
    )
    if (settlement.outcome === 'failed' && message && delivery.case_id)
      await this.handOver(
        delivery.case_id,
        'The chatbot could not take the message; the case goes to an agent',
      )
  }

  /** The dead-bot rule: cases whose oldest undelivered message waited too long go to agents. */
  async sweep(now: number): Promise<void> {
    const waiting = await this.outbox.casesWaitingSince(
      this.deps.database.db,
      now - this.deps.handoverAfterMs,
    )
    for (const { case_id } of waiting) {
      if (case_id === null) continue
      // One case that cannot be handed over (yet) must not hold up the others.
      await this.handOver(case_id, 'The chatbot did not answer in time; the case goes to an agent').catch(
        // A database that is away is weather (warn; the next sweep tries again); anything else, a bug.
        (error: unknown) =>
          logFailure(this.deps.log, error, 'delivery: handover failed', { caseID: case_id }),
      )
    }
  }

  private async handOver(caseID: string, reason: string): Promise<void> {
    this.deps.meter.handedOver()
    await this.deps.cases.handOver(caseID, reason)
  }
}
