import type { BaseLogger } from 'pino'
import { isUnavailable } from '../../errors/faults.js'
import type { Clock } from '../../lib/clock.js'
import type { DestinationPolicy } from '../../lib/destinations.js'
import type { Database } from '../../storage/database.js'
import type { Repositories } from '../repositories.js'
import { type Attempt, type ChatbotClient, failureOf } from './attempt.js'
import type { DeliveryRow } from './deliveries.repository.js'
import { classify, GIVE_UP_AFTER_MS, retryDelay } from './schedule.js'
import {
  type DeliveryMeter,
  type DeliveryRequest,
  type DeliveryTargets,
  describeFailure,
  type Settlement,
} from './target.js'

export type { DeliveryMeter } from './target.js'

export interface DeliveryOptions {
  /** Deliveries in flight at once on this instance. */
  concurrency: number
  /** How often to look for due deliveries when idle. */
  pollMs: number
  /** One attempt's time limit (DESIGN §9: 10 s). */
  timeoutMs: number
  /** A case whose oldest undelivered message is older than this goes to agents (BOT_HANDOVER_AFTER). */
  handoverAfterMs: number
  /** In [0, 1): how much of the 20 % jitter a retry gets. */
  jitter: () => number
}

export const DELIVERY_DEFAULTS = { concurrency: 64, pollMs: 100, jitter: Math.random }

/**
 * The one delivery engine: sends the outbox to its targets (chatbots, event endpoints; see
 * DeliveryTarget), each delivery signed (Standard Webhooks) with a stable `webhook-id`, retried on
 * network errors, timeouts, 408, 429 and 5xx with exponential backoff; one at a time per ordering
 * key (a case, an endpoint), in order. A lease marks a delivery in flight, so several instances
 * share the outbox and a crashed sender's deliveries are picked up again.
 */
export class DeliveryWorker {
  private readonly inFlight = new Map<string, Promise<void>>()
  private timer: NodeJS.Timeout | undefined
  private pending = false
  private stopping = false
  private round: Promise<number> = Promise.resolve(0)
  private lastSweep = Number.NEGATIVE_INFINITY

  constructor(
    private readonly deps: {
      database: Database
      clock: Clock
      log: Pick<BaseLogger, 'warn' | 'error'>
      repositories: Pick<Repositories, 'deliveries'>
      /** How deliveries go out (over HTTP; tests may wrap it). */
      client: ChatbotClient
      /** Where deliveries may connect (CHATBOT_URL_ALLOW). */
      destinations: DestinationPolicy
      meter: Pick<DeliveryMeter, 'lag'>
      targets: DeliveryTargets
    },
    private readonly options: DeliveryOptions,
  ) {}

  /** The outbox's queries. */
  private get outbox() {
    return this.deps.repositories.deliveries
  }

  start(): void {
    this.stopping = false
    this.schedule(0)
  }

  /** Runs a round after `delayMs` (or sooner, if one is already due), unless stopping. */
  private schedule(delayMs: number): void {
    if (this.stopping || this.pending) return
    this.pending = true
    clearTimeout(this.timer)
    this.timer = setTimeout(async () => {
      this.pending = false
      let started = 0
      this.round = this.tick()
      try {
        started = await this.round
      } catch (error) {
        this.logTrouble(error, 'delivery: round failed')
      }
      // Busy: look again as soon as a slot frees (see deliver); idle: poll.
      if (started === 0 && this.inFlight.size === 0) this.schedule(this.options.pollMs)
    }, delayMs)
  }

  /** Stops claiming, waits for deliveries in flight (up to one attempt's time), releases the rest. */
  async stop(): Promise<void> {
    this.stopping = true
    clearTimeout(this.timer)
    await this.round.catch(() => {}) // a round already claiming finishes its claim first
    const deadline = new Promise((resolve) => setTimeout(resolve, this.options.timeoutMs).unref())
    await Promise.race([Promise.allSettled(this.inFlight.values()), deadline])
    // Attempts still running keep their leases (they may yet succeed); the lease lapses by itself.
  }

  /**
   * One round (tests drive it by hand): the targets' sweeps, then claim and start sending what is
   * due. Returns how many deliveries it started.
   */
  async tick(): Promise<number> {
    const { database, clock, meter, targets } = this.deps
    const now = clock.now()
    // Once a second is enough for the dead-bot rule and the lag gauge.
    if (now - this.lastSweep >= 1000) {
      this.lastSweep = now
      for (const target of Object.values(targets)) await target.sweep?.(now)
      const oldest = await this.outbox.oldestDue(database.db, now)
      meter.lag(oldest === undefined ? 0 : (now - oldest) / 1000)
    }
    const free = this.options.concurrency - this.inFlight.size
    if (free <= 0 || this.stopping) return 0
    const leaseUntil = now + 3 * this.options.timeoutMs
    const { heads, following } = await database.transaction(async (trx) => {
      const heads = await this.outbox.claimDue(trx, {
        now,
        leaseUntil,
        limit: free,
        dialect: database.dialect,
      })
      // Targets that send chains: the deliveries after each head, in the same claim.
      const chained = heads.filter((d) => (targets[d.target].chain ?? 1) > 1)
      const perKey = Math.max(1, ...chained.map((d) => targets[d.target].chain ?? 1)) - 1
      const following = await this.outbox.claimFollowing(trx, { heads: chained, now, leaseUntil, perKey })
      return { heads, following }
    })
    const claimed = [...heads, ...[...following.values()].flat()]
    const requests = new Map<string, DeliveryRequest>()
    for (const [kind, target] of Object.entries(targets)) {
      const own = claimed.filter((d) => d.target === kind)
      if (own.length > 0) for (const [id, request] of await target.prepare(own)) requests.set(id, request)
    }
    for (const head of heads) {
      const chain = [head, ...(following.get(head.id) ?? [])]
      const attempt = this.deliverChain(chain, requests, now).finally(() => {
        this.inFlight.delete(head.id)
        // A slot is free, and the key's next delivery may be due now (completions that land
        // together share one round).
        if (this.timer !== undefined) this.schedule(2)
      })
      this.inFlight.set(head.id, attempt)
    }
    return heads.length
  }

  /**
   * Sends a chain of one ordering key one after another. Those taken are settled together; the
   * first that is not stops the chain (it is settled on its own) and the rest go back unattempted,
   * as do those left when the chain has run for one attempt's time (so every attempt ends well
   * inside the lease).
   */
  private async deliverChain(
    chain: readonly DeliveryRow[],
    requests: Map<string, DeliveryRequest>,
    claimedAt: number,
  ): Promise<void> {
    if (chain.length === 1) return this.deliver(chain[0] as DeliveryRow, requests.get(chain[0]?.id ?? ''))
    const { clock, database } = this.deps
    const sent: DeliveryRow[] = []
    let next = 0
    try {
      for (; next < chain.length && clock.now() - claimedAt < this.options.timeoutMs; next++) {
        const delivery = chain[next] as DeliveryRow
        const request = requests.get(delivery.id)
        const attempt = request ? await this.post(request) : undefined
        if (attempt && classify(attempt.status) === 'sent') {
          sent.push(delivery)
          continue
        }
        await this.settleSent(sent)
        sent.length = 0
        await this.settle(delivery, attempt, clock.now())
        next++
        break
      }
      await this.settleSent(sent)
      const rest = chain.slice(next).map((d) => d.id)
      if (rest.length > 0) await database.transaction((trx) => this.outbox.releaseLeases(trx, rest))
    } catch (error) {
      // Storage trouble: the leases lapse and the deliveries are tried again.
      this.logTrouble(error, 'delivery: chain not recorded', { deliveryID: chain[0]?.id })
    }
  }

  private async settleSent(sent: readonly DeliveryRow[]): Promise<void> {
    if (sent.length === 0) return
    const now = this.deps.clock.now()
    const ids = sent.map((d) => d.id)
    await this.deps.database.transaction((trx) => this.outbox.settleSent(trx, ids, now))
    for (const delivery of sent)
      await this.deps.targets[delivery.target].settled(delivery, { outcome: 'sent' }, now)
  }

  private post(request: DeliveryRequest): Promise<Attempt> {
    return this.deps.client.post(request.url, request.headers(this.deps.clock.now()), request.body, {
      destinations: this.deps.destinations,
      timeoutMs: this.options.timeoutMs,
    })
  }

  /** Runs rounds, each to its end, until one finds nothing due (for tests and tools). */
  async drain(): Promise<void> {
    while ((await this.tick()) > 0) await Promise.allSettled(this.inFlight.values())
  }

  private async deliver(delivery: DeliveryRow, request: DeliveryRequest | undefined): Promise<void> {
    const { clock } = this.deps
    try {
      const attempt = request ? await this.post(request) : undefined
      await this.settle(delivery, attempt, clock.now())
    } catch (error) {
      // Storage trouble: the lease lapses and the delivery is tried again.
      this.logTrouble(error, 'delivery: attempt not recorded', { deliveryID: delivery.id })
    }
  }

  /** Records how an attempt ended (no attempt: the target is gone): sent, retry, or failed. */
  private async settle(delivery: DeliveryRow, attempt: Attempt | undefined, now: number): Promise<void> {
    const { database } = this.deps
    const target = this.deps.targets[delivery.target]
    const attempts = delivery.attempts + 1
    const outcome = attempt ? classify(attempt.status) : 'failed'
    let settlement: Settlement
    if (outcome === 'sent') {
      // Through a transaction, so settlements share commits (SQLite's group commit).
      await database.transaction((trx) =>
        this.outbox.settleDelivery(trx, delivery.id, {
          status: 'sent',
          sent_at: now,
          attempts,
          updated: now,
        }),
      )
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

  /** A database that is away is weather (warn; the next round tries again); anything else, a bug. */
  private logTrouble(error: unknown, message: string, details: object = {}): void {
    if (isUnavailable(error)) this.deps.log.warn({ ...details, err: error }, message)
    else this.deps.log.error({ ...details, err: error }, message)
  }
}
