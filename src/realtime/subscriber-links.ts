import { createRequire } from 'node:module'
import type { Cluster, Redis } from 'ioredis'
import type { RedisConnections } from '../storage/redis.js'

/** What the hub hears from its subscriptions. */
export interface SubscriptionEvents {
  message(channel: string, raw: string): void
  /** These channels' subscriptions dropped (their connection closed, or their slot moved): frames may be lost. */
  dropped(channels: string[]): void
}

/**
 * Where the hub's subscriptions live: one connection to a single Redis (plain pub/sub), or one
 * per master of a cluster (sharded pub/sub, each channel on the master that owns its slot).
 */
export interface Subscriptions {
  /** Resolves once Redis confirmed the subscription. */
  subscribe(channel: string): Promise<void>
  unsubscribe(channel: string): void
  /** Why a subscription made is lost for now (its connection closed), if one is. */
  problem(): string | undefined
  close(): Promise<void>
}

/**
 * One subscribed connection and its channels. It subscribes again itself after every
 * reconnection (autoResubscribe is off), so "up" means subscribed, not just connected, and a
 * connection that closed reports its channels dropped once.
 */
class Link {
  readonly channels = new Set<string>()
  private up = false
  /** Closed after it was subscribed, and not subscribed again yet: its channels are lost. */
  private down = false

  constructor(
    readonly connection: Redis,
    private readonly sharded: boolean,
    private readonly events: SubscriptionEvents,
  ) {
    connection.on(sharded ? 'smessage' : 'message', this.onMessage)
    connection.on('ready', this.resubscribe)
    connection.on('close', this.onClose)
    if (connection.status === 'ready') this.resubscribe()
  }

  /** What is wrong, once it lost its subscriptions (a link still starting has lost nothing). */
  get status(): string | undefined {
    return this.down ? `subscriber ${this.connection.status}` : undefined
  }

  subscribe(channel: string): Promise<void> {
    this.channels.add(channel)
    return this.command('subscribe', [channel])
  }

  unsubscribe(channel: string): void {
    if (!this.channels.delete(channel)) return
    this.command('unsubscribe', [channel]).catch(() => {})
  }

  close(): void {
    this.connection.off(this.sharded ? 'smessage' : 'message', this.onMessage)
    this.connection.off('ready', this.resubscribe)
    this.connection.off('close', this.onClose)
  }

  private command(kind: 'subscribe' | 'unsubscribe', channels: string[]): Promise<void> {
    const name = this.sharded ? (`s${kind}` as const) : kind
    return this.connection[name](...channels).then(() => {})
  }

  private readonly onMessage = (channel: string, raw: string) => this.events.message(channel, raw)

  private readonly resubscribe = () => {
    const channels = [...this.channels]
    const subscribed = channels.length > 0 ? this.command('subscribe', channels) : Promise.resolve()
    subscribed
      .then(() => {
        this.up = this.connection.status === 'ready'
        if (this.up) this.down = false
      })
      .catch(() => this.connection.disconnect(true))
  }

  private readonly onClose = () => {
    if (!this.up) return
    this.up = false
    this.down = true
    this.events.dropped([...this.channels])
  }
}

/** A single Redis: one connection, plain SUBSCRIBE. */
export class SingleSubscriptions implements Subscriptions {
  private readonly link: Link

  constructor(connection: Redis, events: SubscriptionEvents) {
    this.link = new Link(connection, false, events)
  }

  subscribe(channel: string): Promise<void> {
    return this.link.subscribe(channel)
  }

  unsubscribe(channel: string): void {
    this.link.unsubscribe(channel)
  }

  problem(): string | undefined {
    return this.link.status
  }

  async close(): Promise<void> {
    this.link.close()
  }
}

/**
 * A Redis Cluster: SSUBSCRIBE on a connection of our own to the master owning each channel's
 * slot, so each shard carries only its channels. When the slots move (a failover, resharding),
 * each moved channel is subscribed on its new master and reported dropped: what was published
 * there before could not reach us.
 */
export class ClusterSubscriptions implements Subscriptions {
  private readonly links = new Map<string, Link>()
  private readonly slotOf: (channel: string) => number

  constructor(
    private readonly cluster: Cluster,
    private readonly open: (nodeKey: string) => Redis,
    private readonly events: SubscriptionEvents,
  ) {
    this.slotOf = createRequire(import.meta.url)('cluster-key-slot')
    cluster.on('refresh', this.onRefresh)
  }

  subscribe(channel: string): Promise<void> {
    const link = this.linkFor(channel)
    if (link) return link.subscribe(channel)
    // Before the cluster told its slots: once it has.
    return new Promise((resolve, reject) =>
      this.cluster.once('refresh', () => {
        const known = this.linkFor(channel)
        if (known) known.subscribe(channel).then(resolve, reject)
        else reject(new Error('redis cluster: no master owns the channel'))
      }),
    )
  }

  unsubscribe(channel: string): void {
    for (const link of this.links.values()) link.unsubscribe(channel)
  }

  problem(): string | undefined {
    if (this.cluster.status !== 'ready') return `cluster ${this.cluster.status}`
    for (const [nodeKey, link] of this.links)
      if (link.channels.size > 0 && link.status) return `${nodeKey}: ${link.status}`
    return undefined
  }

  /** Stops listening; the connections close with the others (RedisConnections). */
  async close(): Promise<void> {
    this.cluster.off('refresh', this.onRefresh)
    for (const link of this.links.values()) link.close()
    this.links.clear()
  }

  private nodeOf(channel: string): string | undefined {
    return this.cluster.slots[this.slotOf(channel)]?.[0]
  }

  private linkFor(channel: string): Link | undefined {
    const nodeKey = this.nodeOf(channel)
    if (nodeKey === undefined) return undefined
    let link = this.links.get(nodeKey)
    if (!link) {
      link = new Link(this.open(nodeKey), true, this.events)
      this.links.set(nodeKey, link)
    }
    return link
  }

  /** Channels whose slot now belongs to another master move there; masters left are let go. */
  private readonly onRefresh = () => {
    const moved: string[] = []
    for (const [nodeKey, link] of this.links) {
      for (const channel of link.channels) {
        if (this.nodeOf(channel) === nodeKey) continue
        link.unsubscribe(channel)
        moved.push(channel)
      }
      if (link.channels.size === 0 && !this.cluster.slots.some((owners) => owners[0] === nodeKey)) {
        link.close()
        link.connection.disconnect()
        this.links.delete(nodeKey)
      }
    }
    if (moved.length === 0) return
    for (const channel of moved) this.subscribe(channel).catch(() => {})
    this.events.dropped(moved)
  }
}

/** The hub's subscriptions on the app's Redis: sharded on a cluster, plain on one server. */
export function subscriptionsOn(redis: RedisConnections, events: SubscriptionEvents): Subscriptions {
  const { cluster, subscriber } = redis
  if (cluster) return new ClusterSubscriptions(cluster, (nodeKey) => redis.openSubscriber(nodeKey), events)
  return new SingleSubscriptions(subscriber as Redis, events)
}
