import type { FastifyBaseLogger } from 'fastify'
import type { Cluster, Redis } from 'ioredis'
import { randomToken } from '../lib/secrets.js'
import {
  audienceOfChannel,
  ChannelNumbers,
  channelsOf,
  HeardNumbers,
  parseEnvelope,
  SESSIONS_CHANNEL,
  userChannel,
  watchChannel,
} from './channels.js'
import { type Audience, type Frame, type Hub, LocalHub, type LossListener, type Subscriber } from './hub.js'
import type { SubscriptionEvents, Subscriptions } from './subscriber-links.js'

/** How often an instance tells the channels where a publish of its failed that something is missing. */
export const NOTICE_MS = 1000

/** A channel this instance subscribes to, for as long as something holds it. */
interface Held {
  count: number
  subscribed: Promise<void>
  heard: HeardNumbers
}

/**
 * The hub across instances: publish delivers locally, then through Redis to the instances that
 * hold a socket of each user addressed (one channel per user, channels.ts), which deliver
 * locally only; an instance skips its own messages coming back, so nothing loops or arrives
 * twice. Redis keeps one publisher's messages on one channel in order.
 *
 * Pub/sub forgets what it could not deliver, so this hub says which sockets may have missed
 * something (onLoss): those of the channels whose subscription dropped (Redis restarted, a
 * connection broke, a slot moved), and those of a channel where another instance's numbered
 * publishes arrive with a gap, or where that instance says a publish of its failed. Until every
 * subscription is back it is not ready, and /connect refuses new sockets.
 */
export class RedisHub implements Hub {
  private readonly local: LocalHub
  private readonly origin = randomToken(9)
  /** How every message this instance publishes begins. */
  private readonly ownStart = `{"origin":"${this.origin}","seq":`
  private readonly lossListeners = new Set<LossListener>()
  private readonly numbers = new ChannelNumbers()
  private readonly held = new Map<string, Held>()
  /** Channels where a publish failed since the last notice. */
  private readonly failed = new Set<string>()
  private readonly subscriptions: Subscriptions
  /** The next notice round, while a publish failed (an idle hub sets no timer). */
  private notices: NodeJS.Timeout | undefined
  private readonly send: (channel: string, message: string) => Promise<unknown>
  private sessionsHeard = false
  private closed = false

  /**
   * Takes its connections (storage/redis.ts; the app opens and closes them): the publisher, and
   * the subscriptions, made here with the hub's ears.
   */
  constructor(
    private readonly publisher: Redis | Cluster,
    subscriptions: (events: SubscriptionEvents) => Subscriptions,
    private readonly log: FastifyBaseLogger,
  ) {
    this.local = new LocalHub(log)
    this.subscriptions = subscriptions({ message: this.receive, dropped: this.dropped })
    // A cluster's channels are sharded (SPUBLISH reaches the shard owning the channel's slot).
    this.send = 'nodes' in publisher ? publisher.spublish.bind(publisher) : publisher.publish.bind(publisher)
    this.listenToSessions()
  }

  publish(audience: Audience, frame: Frame): void {
    this.local.publish(audience, frame)
    const event = JSON.stringify(frame)
    for (const [channel, part] of channelsOf(audience)) {
      const seq = this.numbers.next(channel)
      const message = `${this.ownStart}${seq},"audience":${JSON.stringify(part)},"event":${event}}`
      this.send(channel, message).catch((error: Error) => {
        this.noticeLater(channel)
        this.log.error({ err: error, eventName: frame.eventName }, 'redis hub: publish failed')
      })
    }
  }

  subscribe(subscriber: Subscriber): () => void {
    return this.local.subscribe(subscriber)
  }

  /** Subscribes to the user's channel (if no socket here had yet); resolves once Redis confirmed. */
  hold(userID: string): Promise<() => void> {
    return this.acquire(userChannel(userID))
  }

  /** Subscribes to the room's watch channel (if no socket here watched it yet); resolves once Redis confirmed. */
  watch(roomID: string): Promise<() => void> {
    return this.acquire(watchChannel(roomID))
  }

  onLoss(listener: LossListener): () => void {
    this.lossListeners.add(listener)
    return () => this.lossListeners.delete(listener)
  }

  async ready(): Promise<void> {
    const problem = this.sessionsHeard ? this.subscriptions.problem() : 'not subscribed yet'
    if (this.publisher.status !== 'ready' || problem) {
      throw new Error(`redis hub not ready: publisher ${this.publisher.status}, ${problem ?? 'subscribed'}`)
    }
  }

  /** Every instance hears of revoked sessions (each caches them); until it does, it is not ready. */
  private listenToSessions(): void {
    this.acquire(SESSIONS_CHANNEL)
      .then(() => {
        this.sessionsHeard = true
      })
      .catch((error: Error) => {
        this.log.warn({ err: error }, 'redis hub: subscribe failed; trying again')
        if (!this.closed) setTimeout(() => this.listenToSessions(), NOTICE_MS).unref()
      })
  }

  /** Stops listening; the connections stay open until the app closes them (a loss then is no news). */
  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.notices)
    this.lossListeners.clear()
    await this.subscriptions.close()
    this.held.clear()
    await this.local.close()
  }

  private async acquire(channel: string): Promise<() => void> {
    let held = this.held.get(channel)
    if (!held) {
      const entry: Held = {
        count: 0,
        subscribed: this.subscriptions.subscribe(channel),
        heard: new HeardNumbers(),
      }
      // A subscription refused is not kept: the next socket tries again.
      entry.subscribed.catch(() => this.held.get(channel) === entry && this.held.delete(channel))
      this.held.set(channel, entry)
      held = entry
    }
    held.count += 1
    const entry = held
    let released = false
    const release = () => {
      if (released) return
      released = true
      entry.count -= 1
      if (entry.count > 0 || this.held.get(channel) !== entry) return
      this.held.delete(channel)
      this.subscriptions.unsubscribe(channel)
    }
    try {
      await entry.subscribed
    } catch (error) {
      release()
      throw error
    }
    return release
  }

  private readonly receive = (channel: string, raw: string) => {
    const held = this.held.get(channel)
    // Its own publishes come back to an instance holding their user: known by their start, unread.
    if (!held || raw.startsWith(this.ownStart)) return
    const envelope = parseEnvelope(raw)
    if (!envelope) {
      this.log.warn({ length: raw.length }, 'redis hub: dropped a malformed message')
      return
    }
    const { origin, seq, audience, event } = envelope
    if (origin === this.origin) return
    if (!held.heard.record(origin, seq, event !== undefined)) {
      this.log.warn({ origin, seq, channel }, 'redis hub: events from another instance were lost')
      this.lost([channel])
    }
    if (event && audience) this.local.publish(audience, event)
  }

  private readonly dropped = (channels: string[]) => {
    if (channels.length === 0) return
    for (const channel of channels) {
      const held = this.held.get(channel)
      if (held) held.heard = new HeardNumbers()
    }
    this.log.warn({ channels: channels.length }, 'redis hub: subscriptions lost; their sockets must resync')
    this.lost(channels)
  }

  /** Tells the channels where a publish failed the number last used there: their listeners see the gap. */
  private readonly sendNotices = () => {
    this.notices = undefined
    if (this.publisher.status !== 'ready') {
      this.noticeLater()
      return
    }
    for (const channel of [...this.failed]) {
      this.failed.delete(channel)
      const seq = this.numbers.current(channel)
      if (seq === 0) continue
      this.send(channel, JSON.stringify({ origin: this.origin, seq })).catch(() => this.noticeLater(channel))
    }
  }

  /** A notice round in NOTICE_MS (for `channel`, if given), unless one is due already. */
  private noticeLater(channel?: string): void {
    if (channel) this.failed.add(channel)
    if (this.notices || this.closed || this.failed.size === 0) return
    this.notices = setTimeout(this.sendNotices, NOTICE_MS)
    this.notices.unref()
  }

  /** The sockets of these channels may have missed frames (all of them, for the sessions' channel). */
  private lost(channels: string[]): void {
    const audiences = channels.map(audienceOfChannel)
    const audience = audiences.includes(undefined)
      ? undefined
      : {
          userIDs: audiences.flatMap((a) => a?.userIDs ?? []),
          watchedRoomIDs: audiences.flatMap((a) => a?.watchedRoomIDs ?? []),
        }
    for (const listener of this.lossListeners) {
      try {
        listener(audience)
      } catch (error) {
        this.log.error({ err: error }, 'redis hub: a loss listener failed')
      }
    }
  }
}
