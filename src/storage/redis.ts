import { createRequire } from 'node:module'
import type { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis'
import type { BaseLogger } from 'pino'
import { type RedisTarget, redisTarget } from '../config/redis-target.js'
import type { AttemptCounter } from './counters.js'

/** The hub waits out an outage: commands queue with no retry limit, reconnecting at least every 2 s. */
const HUB_OPTIONS: RedisOptions = {
  maxRetriesPerRequest: null,
  retryStrategy: (attempt: number) => Math.min(attempt * 100, 2000),
}

/** Commands of Parley's Redis connections, on one server or on a cluster alike. */
export type RedisClient = Redis | Cluster

type Connect = (name: string, options: RedisOptions) => RedisClient

/**
 * Parley's connections to Redis (REDIS_URL: one server, or a cluster's seed nodes), opened once
 * where the app is built, handed to what uses them, and closed with the app. Each has the options
 * its user needs, and each an error listener: without one, ioredis prints every failed
 * reconnection as an unhandled error.
 */
export class RedisConnections {
  /** The hub's publishes. */
  readonly publisher: RedisClient
  /**
   * On one server, the hub's subscriptions, on a connection of their own (a subscribed connection
   * runs no other command; the hub subscribes again itself after a reconnection, so it knows when
   * it is). On a cluster, the hub opens one per master (openSubscriber).
   */
  readonly subscriber: Redis | undefined
  /** Presence: a few retries, then the command fails. */
  readonly presence: RedisClient
  /** Login limits: one retry, so a login while Redis is away fails at once (503). */
  readonly logins: RedisClient
  readonly #target: RedisTarget
  readonly #nodeSubscribers = new Set<Redis>()
  readonly #open: (name: string, connection: RedisClient) => RedisClient

  constructor(url: string, log: Pick<BaseLogger, 'warn'>) {
    // Loaded with REDIS_URL only, as this class is used: one instance without Redis never needs it.
    const ioredis: typeof import('ioredis') = createRequire(import.meta.url)('ioredis')
    const target = redisTarget(url)
    if (!target) throw new Error('REDIS_URL names no Redis')
    this.#target = target
    this.#open = (name, connection) => {
      connection.on('error', (error: Error) =>
        log.warn({ err: error, connection: name }, 'redis: connection problem'),
      )
      return connection
    }
    const connect: Connect =
      target.kind === 'single'
        ? (name, options) => this.#open(name, new ioredis.Redis(target.url, options))
        : (name, options) =>
            this.#open(name, new ioredis.Cluster(target.nodes, clusterOptions(target, options)))
    this.publisher = connect('hub publisher', HUB_OPTIONS)
    this.subscriber =
      target.kind === 'single'
        ? (connect('hub subscriber', { ...HUB_OPTIONS, autoResubscribe: false }) as Redis)
        : undefined
    // Commands issued together go out together (a presence look-up of many users: one round trip).
    this.presence = connect('presence', { maxRetriesPerRequest: 3, enableAutoPipelining: true })
    this.logins = connect('login limits', { maxRetriesPerRequest: 1 })
  }

  /** The publisher as a cluster client, on a cluster. */
  get cluster(): Cluster | undefined {
    return this.#target.kind === 'cluster' ? (this.publisher as Cluster) : undefined
  }

  /** On a cluster: a subscriber connection to one master (`host:port`), closed with the others. */
  openSubscriber(nodeKey: string): Redis {
    const target = this.#target
    if (target.kind !== 'cluster') throw new Error('one Redis server has one subscriber connection')
    const { Redis: Client }: typeof import('ioredis') = createRequire(import.meta.url)('ioredis')
    const at = nodeKey.lastIndexOf(':')
    const connection = new Client({
      ...HUB_OPTIONS,
      ...nodeOptions(target),
      host: nodeKey.slice(0, at),
      port: Number(nodeKey.slice(at + 1)),
      autoResubscribe: false,
    })
    this.#open(`hub subscriber ${nodeKey}`, connection)
    this.#nodeSubscribers.add(connection)
    connection.once('end', () => this.#nodeSubscribers.delete(connection))
    return connection
  }

  /** Resolves once every connection has ended. */
  async close(): Promise<void> {
    const all = [this.publisher, this.subscriber, this.presence, this.logins, ...this.#nodeSubscribers]
    await Promise.all(
      all.map((connection) => {
        if (!connection) return undefined
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

/** What every connection to a cluster's nodes needs: its credentials, and TLS with rediss+cluster. */
const nodeOptions = (target: Extract<RedisTarget, { kind: 'cluster' }>): RedisOptions => ({
  ...(target.username ? { username: target.username } : {}),
  ...(target.password ? { password: target.password } : {}),
  ...(target.tls ? { tls: {} } : {}),
})

/** A cluster client whose node connections have `options`; it keeps looking for the cluster like them. */
function clusterOptions(
  target: Extract<RedisTarget, { kind: 'cluster' }>,
  options: RedisOptions,
): ClusterOptions {
  const { enableAutoPipelining, maxRetriesPerRequest, ...perNode } = options
  return {
    redisOptions: { ...perNode, ...nodeOptions(target), maxRetriesPerRequest },
    clusterRetryStrategy: (attempt: number) => Math.min(attempt * 100, 2000),
    ...(enableAutoPipelining ? { enableAutoPipelining } : {}),
  }
}

/** Counts shared by every instance. */
export class RedisCounter implements AttemptCounter {
  constructor(private readonly redis: RedisClient) {}

  async add(key: string, windowMs: number): Promise<number> {
    const replies = await this.redis.multi().incr(key).pexpire(key, windowMs).exec()
    return Number(replies?.[0]?.[1] ?? 0)
  }

  async remove(key: string): Promise<void> {
    await this.redis.decr(key)
  }
}
