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
 * away, ioredis queues what is published and resubscribes by itself when it is back.
 */
export class RedisHub implements Hub {
  private readonly local = new LocalHub()
  private readonly origin = randomToken(9)
  private readonly publisher: Redis
  private readonly subscriber: Redis

  constructor(
    url: string,
    private readonly log: FastifyBaseLogger,
  ) {
    const options = {
      maxRetriesPerRequest: null,
      retryStrategy: (attempt: number) => Math.min(attempt * 100, 2000),
    }
    this.publisher = new Redis(url, options)
    this.subscriber = new Redis(url, options)
    for (const client of [this.publisher, this.subscriber]) {
      client.on('error', (error: Error) => log.warn({ err: error }, 'redis hub: connection problem'))
    }
    this.subscriber.on('message', (_channel: string, raw: string) => {
      const { origin, audience, event } = JSON.parse(raw) as Envelope
      if (origin !== this.origin) this.local.publish(audience, event)
    })
    this.subscriber
      .subscribe(CHANNEL)
      .catch((error: Error) => log.error({ err: error }, 'redis hub: subscribe failed'))
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
    if (this.publisher.status !== 'ready' || this.subscriber.status !== 'ready') {
      throw new Error(`redis is ${this.publisher.status}/${this.subscriber.status}`)
    }
  }

  async close(): Promise<void> {
    await this.local.close()
    this.publisher.disconnect()
    this.subscriber.disconnect()
  }
}
