import { createRequire } from 'node:module'
import type { Redis, RedisOptions } from 'ioredis'
import type { BaseLogger } from 'pino'
import type { AttemptCounter } from './counters.js'

/** The hub waits out an outage: commands queue with no retry limit, reconnecting at least every 2 s. */
const HUB_OPTIONS: RedisOptions = {
  maxRetriesPerRequest: null,
  retryStrategy: (attempt: number) => Math.min(attempt * 100, 2000),
}

/**
 * Parley's connections to Redis (REDIS_URL), opened once where the app is built, handed to what
 * uses them, and closed with the app. Each has the options its user needs, and each an error
 * listener: without one, ioredis prints every failed reconnection as an unhandled error.
 */
export class RedisConnections {
  /** The hub's publishes. */
  readonly publisher: Redis
  /**
   * The hub's subscription, on a connection of its own (a subscribed connection runs no other
   * command). The hub subscribes again itself after a reconnection, so it knows when it is.
   */
  readonly subscriber: Redis
  /** Presence: a few retries, then the command fails. */
  readonly presence: Redis
  /** Login limits: one retry, so a login while Redis is away fails at once (503). */
  readonly logins: Redis

  constructor(url: string, log: Pick<BaseLogger, 'warn'>) {
    // Loaded with REDIS_URL only, as this class is used: one instance without Redis never needs it.
    const { Redis: Client }: typeof import('ioredis') = createRequire(import.meta.url)('ioredis')
    const open = (name: string, options: RedisOptions) => {
      const connection = new Client(url, options)
      connection.on('error', (error: Error) =>
        log.warn({ err: error, connection: name }, 'redis: connection problem'),
      )
      return connection
    }
    this.publisher = open('hub publisher', HUB_OPTIONS)
    this.subscriber = open('hub subscriber', { ...HUB_OPTIONS, autoResubscribe: false })
    this.presence = open('presence', { maxRetriesPerRequest: 3 })
    this.logins = open('login limits', { maxRetriesPerRequest: 1 })
  }

  /** Resolves once every connection has ended. */
  async close(): Promise<void> {
    const all = [this.publisher, this.subscriber, this.presence, this.logins]
    await Promise.all(
      all.map((connection) => {
        // Between two attempts to reconnect there is no socket to end: disconnect stops the attempts.
        const ended =
          connection.status === 'reconnecting' || connection.status === 'end'
            ? undefined
            : new Promise((resolve) => connection.once('end', resolve))
        connection.disconnect()
        return ended
      }),
    )
  }
}

/** Counts shared by every instance. */
export class RedisCounter implements AttemptCounter {
  constructor(private readonly redis: Redis) {}

  async add(key: string, windowMs: number): Promise<number> {
    const replies = await this.redis.multi().incr(key).pexpire(key, windowMs).exec()
    return Number(replies?.[0]?.[1] ?? 0)
  }

  async remove(key: string): Promise<void> {
    await this.redis.decr(key)
  }
}
