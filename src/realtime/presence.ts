import { Redis } from 'ioredis'

/**
 * Which users have at least one open socket, across instances. Sockets are counted, so a user is
 * online from their first socket to their last, whichever instances hold them.
 */
export interface PresenceStore {
  /** Records a socket; true when the user had none before (they came online). */
  add(userID: string, socketID: string): Promise<boolean>
  /** Forgets a socket; true when the user has none left (they went offline). */
  remove(userID: string, socketID: string): Promise<boolean>
  /** Marks these sockets as still open (entries of an instance that died expire by themselves). */
  refresh(sockets: { userID: string; socketID: string }[]): Promise<void>
  close(): Promise<void>
}

export class LocalPresence implements PresenceStore {
  private readonly sockets = new Map<string, Set<string>>()

  async add(userID: string, socketID: string): Promise<boolean> {
    const mine = this.sockets.get(userID) ?? new Set<string>()
    this.sockets.set(userID, mine.add(socketID))
    return mine.size === 1
  }

  async remove(userID: string, socketID: string): Promise<boolean> {
    const mine = this.sockets.get(userID)
    if (!mine?.delete(socketID)) return false
    if (mine.size > 0) return false
    this.sockets.delete(userID)
    return true
  }

  async refresh(): Promise<void> {}

  async close(): Promise<void> {}
}

/** How long a socket counts without a refresh (instances refresh on every ping round). */
const SOCKET_TTL_MS = 90_000
const key = (userID: string) => `parley:presence:${userID}`

// One sorted set per user: member = socket, score = when it stops counting. Each script drops
// stale members first and answers how many were live, atomically.
const ADD = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local before = redis.call('ZCARD', KEYS[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return before`
const REMOVE = `local removed = redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if removed == 1 and redis.call('ZCARD', KEYS[1]) == 0 then return 1 end
return 0`

export class RedisPresence implements PresenceStore {
  private readonly redis: Redis

  constructor(url: string) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 3 })
    this.redis.on('error', () => {}) // reported by the hub's clients; presence degrades gracefully
  }

  async add(userID: string, socketID: string): Promise<boolean> {
    const now = Date.now()
    const before = await this.redis.eval(
      ADD,
      1,
      key(userID),
      now,
      now + SOCKET_TTL_MS,
      socketID,
      SOCKET_TTL_MS,
    )
    return before === 0
  }

  async remove(userID: string, socketID: string): Promise<boolean> {
    return (await this.redis.eval(REMOVE, 1, key(userID), Date.now(), socketID)) === 1
  }

  async refresh(sockets: { userID: string; socketID: string }[]): Promise<void> {
    if (sockets.length === 0) return
    const until = Date.now() + SOCKET_TTL_MS
    const batch = this.redis.pipeline()
    for (const { userID, socketID } of sockets) {
      batch.zadd(key(userID), 'XX', until, socketID)
      batch.pexpire(key(userID), SOCKET_TTL_MS)
    }
    await batch.exec()
  }

  async close(): Promise<void> {
    this.redis.disconnect()
  }
}

/** What presence needs of the domain: who a user is, and who shares a room with them. */
export interface PresenceDirectory {
  user(organizationID: string, userID: string): Promise<unknown>
  peers(userID: string): Promise<string[]>
}

/**
 * Announces `user/status` when a user's first socket opens (online) and their last one closes
 * (offline), to the user's other devices and everyone who shares a room with them.
 */
export class Presence {
  constructor(
    private readonly store: PresenceStore,
    private readonly directory: PresenceDirectory,
    private readonly hub: {
      publish(audience: { userIDs: string[] }, event: { eventName: string; data: unknown }): void
    },
    private readonly now: () => number,
  ) {}

  async connected(client: { userID: string; organizationID: string }, socketID: string): Promise<void> {
    if (await this.store.add(client.userID, socketID)) await this.announce(client, true)
  }

  async disconnected(client: { userID: string; organizationID: string }, socketID: string): Promise<void> {
    if (await this.store.remove(client.userID, socketID)) await this.announce(client, false)
  }

  refresh(sockets: { userID: string; socketID: string }[]): Promise<void> {
    return this.store.refresh(sockets)
  }

  close(): Promise<void> {
    return this.store.close()
  }

  private async announce(
    client: { userID: string; organizationID: string },
    isOnline: boolean,
  ): Promise<void> {
    const [user, peers] = await Promise.all([
      this.directory.user(client.organizationID, client.userID),
      this.directory.peers(client.userID),
    ])
    this.hub.publish(
      { userIDs: [client.userID, ...peers] },
      { eventName: 'user/status', data: { user, isOnline, lastActive: this.now() } },
    )
  }
}
