import type { BaseLogger } from 'pino'
import { Webhook } from 'standardwebhooks'
import { isUnavailable } from '../../errors/faults.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { ChatbotCases } from '../cases/chatbot-cases.js'
import type { ChatbotsService } from '../chatbots/chatbots.service.js'
import type { Files } from '../files/files.service.js'
import type { Repositories } from '../repositories.js'
import { type Attempt, type ChatbotClient, type Failure, failureOf } from './attempt.js'
import type { DeliveryContext, DeliveryRow } from './deliveries.repository.js'
import { deliveryBody } from './payload.js'
import { classify, GIVE_UP_AFTER_MS, retryDelay } from './schedule.js'

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

/** What the worker counts, for /metrics. */
export interface DeliveryMeter {
  sent(): void
  retried(): void
  failed(): void
  handedOver(): void
  lag(seconds: number): void
}

/**
 * Sends the outbox to chatbots: each delivery signed (Standard Webhooks) with a stable
 * `webhook-id`, retried on network errors, timeouts, 408, 429 and 5xx with exponential backoff;
 * one at a time per case, in order. A lease marks a delivery in flight, so several instances
 * share the outbox and a crashed sender's deliveries are picked up again. Chatbots that fail for
 * good, or keep a visitor waiting longer than `handoverAfterMs`, lose the case to agents.
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
      chatbots: ChatbotsService
      cases: ChatbotCases
      log: Pick<BaseLogger, 'warn' | 'error'>
      repositories: Pick<Repositories, 'deliveries'>
      /** How deliveries reach chatbots (over HTTP; tests may wrap it). */
      client: ChatbotClient
      meter: DeliveryMeter
      /** Links to the files visitors send, made per attempt and good for a day. */
      files: Pick<Files, 'withLinks'>
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
   * One round (tests drive it by hand): hand over waiting cases, then claim and start sending what
   * is due. Returns how many deliveries it started.
   */
  async tick(): Promise<number> {
    const { database, clock, meter } = this.deps
    const now = clock.now()
    // Once a second is enough for the dead-bot rule and the lag gauge.
    if (now - this.lastSweep >= 1000) {
      this.lastSweep = now
      for (const { case_id } of await this.outbox.casesWaitingSince(
        database.db,
        now - this.options.handoverAfterMs,
      )) {
        // One case that cannot be handed over (yet) must not hold up the others.
        await this.handOver(case_id, 'The chatbot did not answer in time; the case goes to an agent').catch(
          (error: unknown) => this.logTrouble(error, 'delivery: handover failed', { caseID: case_id }),
        )
      }
      const oldest = await this.outbox.oldestDue(database.db, now)
      meter.lag(oldest === undefined ? 0 : (now - oldest) / 1000)
    }
    const free = this.options.concurrency - this.inFlight.size
    if (free <= 0 || this.stopping) return 0
    const claimed = await database.transaction((trx) =>
      this.outbox.claimDue(trx, {
        now,
        leaseUntil: now + 3 * this.options.timeoutMs,
        limit: free,
        dialect: database.dialect,
      }),
    )
    const contexts = new Map(
      (
        await this.outbox.deliveryContexts(
          database.db,
          claimed.map((d) => d.id),
        )
      ).map((c) => [c.id, c]),
    )
    for (const delivery of claimed) {
      const attempt = this.deliver(delivery, contexts.get(delivery.id)).finally(() => {
        this.inFlight.delete(delivery.id)
        // A slot is free, and the case's next delivery may be due now (completions that land
        // together share one round).
        if (this.timer !== undefined) this.schedule(2)
      })
      this.inFlight.set(delivery.id, attempt)
    }
    return claimed.length
  }

  /** Runs rounds, each to its end, until one finds nothing due (for tests and tools). */
  async drain(): Promise<void> {
    while ((await this.tick()) > 0) await Promise.allSettled(this.inFlight.values())
  }

  private async deliver(delivery: DeliveryRow, context: DeliveryContext | undefined): Promise<void> {
    const { clock } = this.deps
    try {
      const request = await this.prepare(delivery, context)
      const attempt = request
        ? await this.deps.client.post(request.url, request.headers(clock.now()), request.body, {
            destinations: this.deps.chatbots.destinations,
            timeoutMs: this.options.timeoutMs,
          })
        : undefined
      await this.settle(delivery, attempt, clock.now())
    } catch (error) {
      // Storage trouble: the lease lapses and the delivery is tried again.
      this.logTrouble(error, 'delivery: attempt not recorded', { deliveryID: delivery.id })
    }
  }

  /** Records how an attempt ended (no attempt: the chatbot or case is gone): sent, retry, or failed. */
  private async settle(delivery: DeliveryRow, attempt: Attempt | undefined, now: number): Promise<void> {
    const { database, meter } = this.deps
    const attempts = delivery.attempts + 1
    const outcome = attempt ? classify(attempt.status) : 'failed'
    if (outcome === 'sent') {
      meter.sent()
      // Through a transaction, so settlements share commits (SQLite's group commit).
      await database.transaction((trx) =>
        this.outbox.settleDelivery(trx, delivery.id, {
          status: 'sent',
          sent_at: now,
          attempts,
          updated: now,
        }),
      )
      return
    }
    const failure = failureOf(attempt)
    const last_error = 'status' in failure ? `HTTP ${failure.status}` : failure.error
    if (outcome === 'retry' && now - delivery.created < GIVE_UP_AFTER_MS) {
      meter.retried()
      const next = now + retryDelay(attempts, this.options.jitter())
      await database.transaction((trx) =>
        this.outbox.settleDelivery(trx, delivery.id, {
          attempts,
          next_attempt_at: next,
          last_error,
          updated: now,
        }),
      )
      this.logFailure(delivery, failure, new Date(next).toISOString())
      return
    }
    meter.failed()
    // In one transaction with the failure, so the case's next delivery cannot be claimed before
    // the handover below abandons it.
    await database.transaction(async (trx) => {
      await this.outbox.settleDelivery(trx, delivery.id, {
        status: 'failed',
        attempts,
        last_error,
        updated: now,
      })
      await this.outbox.abandonPending(trx, delivery.case_id, now)
    })
    this.logFailure(delivery, failure, 'failed for good')
    await this.handOver(delivery.case_id, 'The chatbot could not take the message; the case goes to an agent')
  }

  /**
   * A failed attempt, at warn: otherwise a dead bot shows only in a counter. What the operator
   * needs to find the bot's fault, and nothing the bot was sent (no body, secret or signature).
   */
  private logFailure(delivery: DeliveryRow, failure: Failure, nextAttempt: string): void {
    this.deps.log.warn(
      {
        caseID: delivery.case_id,
        deliveryID: delivery.id,
        chatbotID: delivery.chatbot_id,
        attempt: delivery.attempts + 1,
        ...failure,
        nextAttempt,
      },
      nextAttempt === 'failed for good'
        ? 'delivery to the chatbot failed for good; the case goes to agents'
        : 'delivery to the chatbot failed; it will be retried',
    )
  }

  /** The URL, body and headers of a delivery; undefined when its chatbot, case or message is gone. */
  private async prepare(delivery: DeliveryRow, context: DeliveryContext | undefined) {
    const endpoint = await this.deps.chatbots.endpoint(delivery.chatbot_id)
    if (!endpoint || !context) return undefined
    const body = deliveryBody(context, (data) => this.deps.files.withLinks(data, 'day'))
    const signer = new Webhook(endpoint.secretKey)
    return {
      url: endpoint.url,
      body,
      // Signed per attempt: the id stays, the timestamp is this attempt's.
      headers: (now: number) => ({
        'content-type': 'application/json',
        'x-secret-key': endpoint.secretKey,
        'webhook-id': delivery.id,
        'webhook-timestamp': String(Math.floor(now / 1000)),
        'webhook-signature': signer.sign(delivery.id, new Date(now), body),
      }),
    }
  }

  private async handOver(caseID: string, reason: string): Promise<void> {
    this.deps.meter.handedOver()
    await this.deps.cases.handOver(caseID, reason)
  }

  /** A database that is away is weather (warn; the next round tries again); anything else, a bug. */
  private logTrouble(error: unknown, message: string, details: object = {}): void {
    if (isUnavailable(error)) this.deps.log.warn({ ...details, err: error }, message)
    else this.deps.log.error({ ...details, err: error }, message)
  }
}
