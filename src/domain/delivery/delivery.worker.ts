import type { BaseLogger } from 'pino'
import { logFailure } from '../../errors/faults.js'
import type { Clock } from '../../lib/clock.js'
import type { DestinationPolicy } from '../../lib/destinations.js'
import type { Database } from '../../storage/database.js'
import type { Repositories } from '../repositories.js'
import type { Attempt, ChatbotClient } from './attempt.js'
import type { ChainSender } from './chain-sender.js'
import type { DeliveryRow } from './deliveries.repository.js'
import { Rounds } from './rounds.js'
import { classify } from './schedule.js'
import { Settlements } from './settlements.js'
import { type DeliveryMeter, type DeliveryRequest, type DeliveryTargets, signedHeaders } from './target.js'

export type { DeliveryMeter } from './target.js'

export interface DeliveryOptions {
  /** Deliveries in flight at once on this instance. */
  concurrency: number
  /**
   * How often to look for due deliveries when idle: for retries coming due, another instance's
   * deliveries (this one's wake it: see wake), and leases lapsed.
   */
  pollMs: number
  /** One attempt's time limit (docs/reference/chatbot-webhook.md: 10 s). */
  timeoutMs: number
  /** A case whose oldest undelivered message is older than this goes to agents (BOT_HANDOVER_AFTER). */
  handoverAfterMs: number
  /** In [0, 1): how much of the 20 % jitter a retry gets. */
  jitter: () => number
}

/** Deliveries of one ordering key claimed together, their requests, and when. */
interface Claimed {
  chain: readonly DeliveryRow[]
  requests: Map<string, DeliveryRequest>
  claimedAt: number
}

export const DELIVERY_DEFAULTS = { concurrency: 64, pollMs: 1000, jitter: Math.random }
const WAKE_GATHER_MS = 20

/**
 * The one delivery engine: sends the outbox to its targets (chatbots, event endpoints; see
 * DeliveryTarget), each delivery signed (Standard Webhooks) with a stable `webhook-id`, retried on
 * network errors, timeouts, 408, 429 and 5xx with exponential backoff; one at a time per ordering
 * key (a case, an endpoint), in order. A lease marks a delivery in flight, so several instances
 * share the outbox and a crashed sender's deliveries are picked up again. Targets that send
 * chains (event endpoints) send them on the sender thread, back to back (see deliverChain).
 */
export class DeliveryWorker {
  private readonly inFlight = new Map<string, Promise<void>>()
  private stopping = false
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
      /** How chains go out (a thread of their own: see ThreadChainSender). */
      chains: ChainSender
      meter: Pick<DeliveryMeter, 'lag'>
      targets: DeliveryTargets
    },
    private readonly options: DeliveryOptions,
  ) {
    this.settlements = new Settlements(deps, options)
    this.rounds = new Rounds(async () => {
      let started = 0
      try {
        started = await this.tick()
      } catch (error) {
        logFailure(this.deps.log, error, 'delivery: round failed')
      }
      // Busy: again as soon as a slot frees (see deliver); idle: at the next poll.
      return { idle: started === 0 && this.inFlight.size === 0 }
    }, options.pollMs)
  }

  /** When rounds run: now, after a delay, or at the next poll (idle). */
  private readonly rounds: Rounds

  /** How attempts are recorded. */
  private readonly settlements: Settlements

  /** The outbox's queries. */
  private get outbox() {
    return this.deps.repositories.deliveries
  }

  start(): void {
    this.stopping = false
    this.rounds.start()
  }

  /**
   * New deliveries have committed (the outbox bell): a round now, not at the next poll. While
   * deliveries are in flight, a round gathers what commits in the next WAKE_GATHER_MS: under load,
   * a round per commit would claim one delivery at a time.
   */
  wake(): void {
    this.rounds.after(this.inFlight.size === 0 ? 0 : WAKE_GATHER_MS)
  }

  /** Stops claiming, waits for deliveries in flight (up to one attempt's time), releases the rest. */
  async stop(): Promise<void> {
    this.stopping = true
    this.rounds.stop()
    await this.rounds.current // a round already claiming finishes its claim first
    const deadline = new Promise((resolve) => setTimeout(resolve, this.options.timeoutMs).unref())
    await Promise.race([Promise.allSettled(this.inFlight.values()), deadline])
    await this.deps.chains.close()
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
      // Nothing due, so nothing to claim (a claim takes only due deliveries): an idle worker's poll
      // is this one query, not a transaction of three more round trips besides.
      if (oldest === undefined) return 0
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
      const attempt = this.deliverChain({ chain, requests, claimedAt: now }).finally(() => {
        this.inFlight.delete(head.id)
        // A slot is free, and the key's next delivery may be due now (completions that land
        // together share one round).
        this.rounds.after(2)
      })
      this.inFlight.set(head.id, attempt)
    }
    return heads.length
  }

  /**
   * Sends a chain of one ordering key one after another (on the sender thread). While it goes
   * out, the chain before it is recorded as sent and the deliveries after it are claimed (its own
   * are pending and held meanwhile, so nobody else can take them) and prepared: the endpoint's
   * next chain is ready when this one ends. Nothing goes out before all before it were taken at
   * least once, so first receipts keep the order even if the process dies before recording them.
   * A delivery not taken stops the chain (settled on its own); the rest go back unattempted, as do
   * those left when a chain has run for one attempt's time (so every attempt ends inside its lease).
   */
  private async deliverChain(first: Claimed): Promise<void> {
    const only = first.chain[0] as DeliveryRow
    if (first.chain.length === 1) return this.deliver(only, first.requests.get(only.id))
    const { clock, database } = this.deps
    let current: Claimed | undefined = first
    let before: readonly DeliveryRow[] = []
    try {
      while (current) {
        const sending = this.sendChain(current)
        const ahead: Claimed | undefined = await this.recordAndClaimAhead(before, current).catch(
          async (error: unknown) => {
            await sending.catch(() => {})
            throw error
          },
        )
        const { sent, stopped, rest } = await sending
        before = sent
        if (stopped || rest.length > 0 || !ahead) {
          await this.settlements.sent(sent)
          if (stopped) await this.settlements.settle(stopped.delivery, stopped.attempt, clock.now())
          const back = [...rest, ...(ahead?.chain ?? [])].map((d) => d.id)
          if (back.length > 0) await database.transaction((trx) => this.outbox.releaseLeases(trx, back))
          return
        }
        current = ahead
      }
    } catch (error) {
      // Storage trouble: the leases lapse and the deliveries are tried again.
      logFailure(this.deps.log, error, 'delivery: chain not recorded', { deliveryID: only.id })
    }
  }

  /** One chain through the sender: those taken, the first not taken (if any), and the rest. */
  private async sendChain({ chain, requests, claimedAt }: Claimed) {
    // Those with a request, up to the first without (its target is gone: it fails on its own).
    const lost = chain.findIndex((d) => !requests.has(d.id))
    const sendable = lost === -1 ? chain : chain.slice(0, lost)
    const now = this.deps.clock.now()
    const attempts = await this.deps.chains.send({
      requests: sendable.map((d) => requests.get(d.id) as DeliveryRequest),
      deadline: Date.now() + this.options.timeoutMs - (now - claimedAt),
      clockOffset: now - Date.now(),
      timeoutMs: this.options.timeoutMs,
    })
    const taken = attempts.findIndex((a) => classify(a.status) !== 'sent')
    const sent = chain.slice(0, taken === -1 ? attempts.length : taken)
    const stops = taken !== -1 || (attempts.length === sendable.length && lost !== -1)
    const stopped = stops
      ? { delivery: chain[sent.length] as DeliveryRow, attempt: attempts[sent.length] }
      : undefined
    return { sent, stopped, rest: chain.slice(sent.length + (stopped ? 1 : 0)) }
  }

  /**
   * In one transaction: records `before` as sent, and claims the deliveries that follow `current`
   * in its ordering key (then prepares them). Nothing when stopping, or nothing follows.
   */
  private async recordAndClaimAhead(
    before: readonly DeliveryRow[],
    current: Claimed,
  ): Promise<Claimed | undefined> {
    const { database, clock, targets } = this.deps
    const head = current.chain[0] as DeliveryRow
    const target = targets[head.target]
    const now = clock.now()
    const ahead = await database.transaction(async (trx) => {
      if (before.length > 0)
        await this.outbox.settleSent(
          trx,
          before.map((d) => d.id),
          now,
        )
      if (this.stopping) return []
      return this.outbox.claimAhead(trx, {
        orderingKey: head.ordering_key,
        held: current.chain.map((d) => d.id),
        now,
        leaseUntil: now + 3 * this.options.timeoutMs,
        perKey: target.chain ?? 1,
      })
    })
    for (const delivery of before) await target.settled(delivery, { outcome: 'sent' }, now)
    if (ahead.length === 0) return undefined
    return { chain: ahead, requests: await target.prepare(ahead), claimedAt: now }
  }

  private post(request: DeliveryRequest): Promise<Attempt> {
    return this.deps.client.post(request.url, signedHeaders(request, this.deps.clock.now()), request.body, {
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
      const own = this.deps.targets[delivery.target].send
      const attempt = request
        ? await (own ? own.call(this.deps.targets[delivery.target], delivery) : this.post(request))
        : undefined
      await this.settlements.settle(delivery, attempt, clock.now())
    } catch (error) {
      // Storage trouble: the lease lapses and the delivery is tried again.
      logFailure(this.deps.log, error, 'delivery: attempt not recorded', { deliveryID: delivery.id })
    }
  }
}
