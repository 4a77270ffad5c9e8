import type { FastifyBaseLogger } from 'fastify'
import { Redis } from 'ioredis'
import { randomToken } from '../lib/secrets.js'
import { type Audience, type Hub, type Listener, LocalHub, type RealtimeEvent } from './hub.js'

const CHANNEL = 'parley:events'

interface Envelope {
  origin: string
  audience: Audience
  event: RealtimeEvent
}

/**
 * The hub across instances: publish delivers locally, then through Redis pub/sub to the other
 * instances, which deliver locally only; an instance skips its own messages coming back, so
 * nothing loops or arrives twice. Redis keeps one publisher's messages in order. While Redis is
 * away, ioredis queues what is published; the hub subscribes again when Redis is back.
 */
export class RedisHub implements Hub {
  private readonly local = new LocalHub()
  private readonly origin = randomToken(9)
  private readonly publisher: Redis
  private readonly subscriber: Redis
  private subscribed = false

  constructor(
    url: string,
    private readonly log: FastifyBaseLogger,
  ) {
    const options = {
      maxRetriesPerRequest: null,
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 2000),
    }
    this.publisher = new Redis(url, options)
    this.subscriber = new Redis(url, { ...options, autoResubscribe: false })
    for (const client of [this.publisher, this.subscriber]) {
      client.on('error', (error: Error) => log.warn({ err: error }, 'redis hub: connection problem'))
    }
    this.subscriber.on('message', (_channel: string, raw: string) => {
      const { origin, audience, event } = JSON.parse(raw) as Envelope
      if (origin !== this.origin) this.local.publish(audience, event)
    })
    // Subscribe on every (re)connection ourselves, so readiness means "subscribed", not just "connected".
    this.subscriber.on('ready', () => {
      this.subscriber
        .subscribe(CHANNEL)
        .then(() => {
          this.subscribed = true
        })
        .catch((error: Error) => log.error({ err: error }, 'redis hub: subscribe failed'))
    })
    this.subscriber.on('close', () => {
      this.subscribed = false
    })
  }

  publish(audience: Audience, event: RealtimeEvent): void {
    this.local.publish(audience, event)
    const envelope: Envelope = { origin: this.origin, audience, event }
    this.publisher
      .publish(CHANNEL, JSON.stringify(envelope))
      .catch((error: Error) =>
        this.log.error({ err: error, eventName: event.eventName }, 'redis hub: publish failed'),
      )
  }

  subscribe(listener: Listener): () => void {
    return this.local.subscribe(listener)
  }

  async ready(): Promise<void> {
    if (this.publisher.status !== 'ready' || !this.subscribed) {
      throw new Error(
        `redis hub not ready: publisher ${this.publisher.status}, subscribed ${this.subscribed}`,
      )
    }
  }

  async close(): Promise<void> {
    await this.local.close()
    this.publisher.disconnect()
    this.subscriber.disconnect()
  }
}
