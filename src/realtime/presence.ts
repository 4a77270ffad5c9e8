import type { User } from '../domain/users/user.js'
import type { RedisClient } from '../storage/redis.js'
import type { Hub } from './hub.js'

/** One open socket of a user, as presence knows it. */
export interface PresenceSocket {
  userID: string
  organizationID: string
  socketID: string
}

/**
 * Which users have at least one open socket, across instances. Sockets are counted, so a user is
 * online from their first socket to their last, whichever instances hold them.
 */
export interface PresenceStore {
  /** Records a socket; true when the user had none before (they came online). */
  add(socket: PresenceSocket): Promise<boolean>
  /** Forgets a socket; true when the user has none left (they went offline). */
  remove(socket: PresenceSocket): Promise<boolean>
  /** Marks these sockets as still open, recording them again if the store lost them. */
  refresh(sockets: PresenceSocket[]): Promise<void>
  /**
   * Forgets sockets nobody refreshed in time (their instance died) and answers the users who
   * have none left. Each such user is answered to one caller only.
   */
  expire(): Promise<{ userID: string; organizationID: string }[]>
  /** Those of these users with at least one open socket. */
  online(userIDs: readonly string[]): Promise<Set<string>>
}

export class LocalPresence implements PresenceStore {
  private readonly sockets = new Map<string, Set<string>>()

  async add({ userID, socketID }: PresenceSocket): Promise<boolean> {
    const mine = this.sockets.get(userID) ?? new Set<string>()
    this.sockets.set(userID, mine.add(socketID))
    return mine.size === 1
  }

  async remove({ userID, socketID }: PresenceSocket): Promise<boolean> {
    const mine = this.sockets.get(userID)
    if (!mine?.delete(socketID)) return false
    if (mine.size > 0) return false
    this.sockets.delete(userID)
    return true
  }

  async refresh(): Promise<void> {}

  /** Sockets of one process close with it: nothing outlives its instance here. */
  async expire(): Promise<{ userID: string; organizationID: string }[]> {
    return []
  }

  async online(userIDs: readonly string[]): Promise<Set<string>> {
    return new Set(userIDs.filter((userID) => this.sockets.has(userID)))
  }
}

/** How long a socket counts without a refresh (instances refresh on every ping round). */
export const SOCKET_TTL_MS = 90_000
/**
 * Users are spread over this many buckets, each in one hash slot (its keys share the hash tag
 * `{presence:<n>}`), so that on a Redis Cluster a script's keys are in one slot and the buckets
 * spread over the shards.
 */
const BUCKETS = 16
function bucketOf(userID: string): number {
  let hash = 0
  for (let i = 0; i < userID.length; i++) hash = (hash * 31 + userID.charCodeAt(i)) >>> 0
  return hash % BUCKETS
}
const userKeyPrefix = (bucket: number) => `parley:{presence:${bucket}}:user:`
const userKey = (userID: string) => `${userKeyPrefix(bucketOf(userID))}${userID}`
/** Every socket of a bucket's users: member `userID organizationID socketID`, score = when it lapses. */
const socketsKey = (bucket: number) => `parley:{presence:${bucket}}:sockets`
const member = (socket: PresenceSocket) => `${socket.userID} ${socket.organizationID} ${socket.socketID}`

// One sorted set per user (member = socket, score = when it stops counting) and one of all
// sockets of the user's bucket, for finding those that lapsed. Each script drops stale members first and answers how
// many were live, atomically.
const ADD = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local before = redis.call('ZCARD', KEYS[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[5])
return before`
const REMOVE = `redis.call('ZREM', KEYS[2], ARGV[3])
local removed = redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if removed == 1 and redis.call('ZCARD', KEYS[1]) == 0 then return 1 end
return 0`
// Lapsed sockets of a bucket, a batch at a time: each is removed by exactly one caller, who learns
// whether its user has no socket left. The users' keys are named here, not passed: they share the
// bucket's hash tag, so on a cluster they are in the slot of KEYS[1].
const EXPIRE = `local lapsed = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 500)
local offline = {}
for _, entry in ipairs(lapsed) do
  redis.call('ZREM', KEYS[1], entry)
  local userID, organizationID, socketID = string.match(entry, '^(%S+) (%S+) (%S+)$')
  if userID then
    local key = ARGV[2] .. userID
    redis.call('ZREM', key, socketID)
    redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[1])
    if redis.call('ZCARD', key) == 0 then table.insert(offline, userID .. ' ' .. organizationID) end
  end
end
return offline`

/** Presence across instances, on a connection the app opens and closes (storage/redis.ts). */
export class RedisPresence implements PresenceStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly now: () => number,
  ) {}

  async add(socket: PresenceSocket): Promise<boolean> {
    const now = this.now()
    const keys = [userKey(socket.userID), socketsKey(bucketOf(socket.userID))]
    const args = [now, now + SOCKET_TTL_MS, socket.socketID, SOCKET_TTL_MS, member(socket)]
    return (await this.redis.eval(ADD, 2, ...keys, ...args)) === 0
  }

  async remove(socket: PresenceSocket): Promise<boolean> {
    const keys = [userKey(socket.userID), socketsKey(bucketOf(socket.userID))]
    return (await this.redis.eval(REMOVE, 2, ...keys, this.now(), socket.socketID, member(socket))) === 1
  }

  /**
   * ZADD without XX: after Redis lost its data (a restart without persistence), this puts it back.
   * One pipeline per bucket, as a cluster takes a pipeline's keys from one slot only.
   */
  async refresh(sockets: PresenceSocket[]): Promise<void> {
    const until = this.now() + SOCKET_TTL_MS
    const batches = new Map<number, ReturnType<RedisClient['pipeline']>>()
    for (const socket of sockets) {
      const bucket = bucketOf(socket.userID)
      const batch = batches.get(bucket) ?? this.redis.pipeline()
      batches.set(bucket, batch)
      batch.zadd(userKey(socket.userID), until, socket.socketID)
      batch.pexpire(userKey(socket.userID), SOCKET_TTL_MS)
      batch.zadd(socketsKey(bucket), until, member(socket))
    }
    await Promise.all([...batches.values()].map((batch) => batch.exec()))
  }

  async expire(): Promise<{ userID: string; organizationID: string }[]> {
    const buckets = Array.from({ length: BUCKETS }, (_, bucket) =>
      this.redis.eval(EXPIRE, 1, socketsKey(bucket), this.now(), userKeyPrefix(bucket)),
    )
    return ((await Promise.all(buckets)) as string[][]).flat().map((entry) => {
      const [userID = '', organizationID = ''] = entry.split(' ')
      return { userID, organizationID }
    })
  }

  /** A user is online while one of their sockets has not lapsed (the counts go out together). */
  async online(userIDs: readonly string[]): Promise<Set<string>> {
    const now = this.now()
    const counts = await Promise.all(userIDs.map((userID) => this.redis.zcount(userKey(userID), now, '+inf')))
    return new Set(userIDs.filter((_, i) => (counts[i] ?? 0) > 0))
  }
}

/** What presence needs of the domain: who a user is, and who shares a room with them. */
export interface PresenceDirectory {
  user(organizationID: string, userID: string): Promise<User>
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
    private readonly hub: Pick<Hub, 'publish'>,
    private readonly now: () => number,
  ) {}

  async connected(socket: PresenceSocket): Promise<void> {
    if (await this.store.add(socket)) await this.announce(socket, true)
  }

  async disconnected(socket: PresenceSocket): Promise<void> {
    if (await this.store.remove(socket)) await this.announce(socket, false)
  }

  /** Those of these users online now (on any instance): for events to the customer's backend. */
  online(userIDs: readonly string[]): Promise<Set<string>> {
    return this.store.online(userIDs)
  }

  /** Once a ping round: keeps this instance's sockets counted, and lets those of dead instances go. */
  async refresh(sockets: PresenceSocket[]): Promise<void> {
    await this.store.refresh(sockets)
    for (const user of await this.store.expire()) await this.announce(user, false)
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
