import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'
import { randomToken } from '../lib/secrets.js'
import { type Audience, type Frame, type Hub, LocalHub, type Subscriber } from './hub.js'

const CHANNEL = 'parley:events'

/** How often an instance says how far it has published, so a lost last event is noticed. */
export const HEARTBEAT_MS = 1000

/**
 * What travels on the channel. `seq` numbers one instance's publishes 1, 2, 3…; a heartbeat
 * (no `event`) repeats the last number used.
 */
interface Envelope {
  origin: string
  seq: number
  audience?: Audience
  /** The frame (named `event` on the channel, which instances of every version share). */
  event?: Frame
}

function parseEnvelope(raw: string): Envelope | undefined {
  try {
    const envelope = JSON.parse(raw) as Envelope
    if (typeof envelope?.origin !== 'string' || !Number.isSafeInteger(envelope.seq)) return undefined
    if (envelope.event !== undefined && (typeof envelope.event?.eventName !== 'string' || !envelope.audience))
      return undefined
    return envelope
  } catch {
    return undefined
  }
}

/**
 * The hub across instances: publish delivers locally, then through Redis pub/sub to the other
 * instances, which deliver locally only; an instance skips its own messages coming back, so
 * nothing loops or arrives twice. Redis keeps one publisher's messages in order.
 *
 * Pub/sub forgets what it could not deliver, so this hub says when its sockets may have missed
 * something (onLoss): when its subscription drops (Redis restarted, the connection broke), and
 * when another instance's numbered publishes arrive with a gap (a publish that failed, or was
 * flushed from ioredis' queue before this instance had subscribed again). Until it has subscribed
 * again it is not ready, and /connect refuses new sockets.
 */
export class RedisHub implements Hub {
  private readonly local: LocalHub
  private readonly origin = randomToken(9)
  private readonly lossListeners = new Set<() => void>()
  /** The last number heard from each other instance since this subscription began. */
  private readonly heard = new Map<string, number>()
  private readonly heartbeat: NodeJS.Timeout
  private seq = 0
  private subscribed = false

  /** Takes its two connections (storage/redis.ts); the app opens and closes them. */
  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly log: FastifyBaseLogger,
  ) {
    this.local = new LocalHub(log)
    this.subscriber.on('message', this.onMessage)
    // Subscribe on every (re)connection ourselves, so readiness means "subscribed", not just "connected".
    this.subscriber.on('ready', this.subscribeToChannel)
    this.subscriber.on('close', this.onClose)
    if (this.subscriber.status === 'ready') this.subscribeToChannel()
    this.heartbeat = setInterval(() => {
      if (this.publisher.status === 'ready') this.send({ origin: this.origin, seq: this.seq })
    }, HEARTBEAT_MS)
    this.heartbeat.unref()
  }

  private readonly onMessage = (_channel: string, raw: string) => this.receive(raw)

  private readonly subscribeToChannel = () => {
    this.subscriber
      .subscribe(CHANNEL)
      .then(() => {
        this.subscribed = true
      })
      .catch((error: Error) => this.log.error({ err: error }, 'redis hub: subscribe failed'))
  }

  private readonly onClose = () => {
    if (!this.subscribed) return
    this.subscribed = false
    this.heard.clear()
    this.log.warn('redis hub: subscription lost; open sockets must resync')
    this.lost()
  }

  publish(audience: Audience, frame: Frame): void {
    this.local.publish(audience, frame)
    this.seq += 1
    this.send({ origin: this.origin, seq: this.seq, audience, event: frame })
  }

  subscribe(subscriber: Subscriber): () => void {
    return this.local.subscribe(subscriber)
  }

  onLoss(listener: () => void): () => void {
    this.lossListeners.add(listener)
    return () => this.lossListeners.delete(listener)
  }

  async ready(): Promise<void> {
    if (this.publisher.status !== 'ready' || !this.subscribed) {
      throw new Error(
        `redis hub not ready: publisher ${this.publisher.status}, subscribed ${this.subscribed}`,
      )
    }
  }

  /** Stops listening; the connections stay open until the app closes them (a loss then is no news). */
  async close(): Promise<void> {
    clearInterval(this.heartbeat)
    this.lossListeners.clear()
    this.subscriber.off('message', this.onMessage)
    this.subscriber.off('ready', this.subscribeToChannel)
    this.subscriber.off('close', this.onClose)
    await this.local.close()
  }

  private send(envelope: Envelope): void {
    this.publisher
      .publish(CHANNEL, JSON.stringify(envelope))
      .catch((error: Error) =>
        this.log.error({ err: error, eventName: envelope.event?.eventName }, 'redis hub: publish failed'),
      )
  }

  private receive(raw: string): void {
    const envelope = parseEnvelope(raw)
    if (!envelope) {
      this.log.warn({ length: raw.length }, 'redis hub: dropped a malformed message')
      return
    }
    const { origin, seq, audience, event } = envelope
    if (origin === this.origin) return
    const last = this.heard.get(origin)
    this.heard.set(origin, seq)
    // An event must be the next number; a heartbeat, the number last heard.
    const expected = event ? (last ?? seq - 1) + 1 : (last ?? seq)
    if (seq !== expected) {
      this.log.warn({ origin, expected, seq }, 'redis hub: events from another instance were lost')
      this.lost()
    }
    if (event && audience) this.local.publish(audience, event)
  }

  private lost(): void {
    for (const listener of this.lossListeners) {
      try {
        listener()
      } catch (error) {
        this.log.error({ err: error }, 'redis hub: a loss listener failed')
      }
    }
  }
}
