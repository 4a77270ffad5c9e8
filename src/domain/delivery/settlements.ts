import type { Clock } from '../../lib/clock.js'
import { Batcher } from '../../storage/batcher.js'
import type { Database } from '../../storage/database.js'
import type { Repositories } from '../repositories.js'
import { type Attempt, failureOf } from './attempt.js'
import type { DeliveryRow } from './deliveries.repository.js'
import { classify, GIVE_UP_AFTER_MS, retryDelay } from './schedule.js'
import { type DeliveryTargets, describeFailure, type Settlement } from './target.js'

/** How the delivery worker records attempts in the outbox, and tells their targets. */
export class Settlements {
  /**
   * Deliveries taken at their first try, recorded many to a statement: under load each of a
   * chatbot's cases has its own delivery in flight, and recorded one by one each cost a
   * transaction (on PostgreSQL three round trips); now one for all that arrive meanwhile (a
   * transaction still: one that loses a deadlock is run again).
   */
  private readonly taken: Batcher<string, void>

  constructor(
    private readonly deps: {
      database: Database
      clock: Clock
      repositories: Pick<Repositories, 'deliveries'>
      targets: DeliveryTargets
    },
    private readonly options: { jitter: () => number },
  ) {
    this.taken = new Batcher(async (ids) => {
      await this.recordSent(ids, deps.clock.now())
      return ids.map(() => undefined)
    }, 1)
  }

  private get outbox() {
    return this.deps.repositories.deliveries
  }

  /** Records deliveries taken at one attempt each, in one statement. */
  private recordSent(ids: readonly string[], now: number): Promise<unknown> {
    return this.deps.database.transaction((trx) => this.outbox.settleSent(trx, ids, now))
  }

  /** Deliveries their targets took, one attempt each: recorded together. */
  async sent(sent: readonly DeliveryRow[]): Promise<void> {
    if (sent.length === 0) return
    const now = this.deps.clock.now()
    await this.recordSent(
      sent.map((d) => d.id),
      now,
    )
    for (const delivery of sent)
      await this.deps.targets[delivery.target].settled(delivery, { outcome: 'sent' }, now)
  }

  /** Records how an attempt ended (no attempt: the target is gone): sent, retry, or failed. */
  async settle(delivery: DeliveryRow, attempt: Attempt | undefined, now: number): Promise<void> {
    const { database } = this.deps
    const target = this.deps.targets[delivery.target]
    const attempts = delivery.attempts + 1
    const outcome = attempt ? classify(attempt.status) : 'failed'
    let settlement: Settlement
    if (outcome === 'sent') {
      await this.taken.run(delivery.id)
      settlement = { outcome: 'sent' }
    } else {
      const failure = failureOf(attempt)
      const last_error = describeFailure(failure)
      if (outcome === 'retry' && now - delivery.created < GIVE_UP_AFTER_MS) {
        const next = now + retryDelay(attempts, this.options.jitter())
        await database.transaction((trx) =>
          this.outbox.settleDelivery(trx, delivery.id, {
            attempts,
            next_attempt_at: next,
            last_error,
            updated: now,
          }),
        )
        settlement = { outcome: 'retry', failure, nextAttempt: next }
      } else {
        // In one transaction with what the target does about it (a chatbot's case: its next
        // delivery cannot be claimed before the handover abandons it).
        await database.transaction(async (trx) => {
          await this.outbox.settleDelivery(trx, delivery.id, {
            status: 'failed',
            attempts,
            last_error,
            updated: now,
          })
          await target.failing?.(trx, delivery, now)
        })
        settlement = { outcome: 'failed', failure }
      }
    }
    await target.settled(delivery, settlement, now)
  }
}
