import type { Audience, Frame } from './hub.js'

// The Redis channels frames travel on between instances (docs/architecture/real-time-fan-out.md):
// one per user (agents are users named `agent:<id>`), which an instance subscribes to while it
// holds a socket of that user, one per watched room (a case an agent views), which an instance
// subscribes to while one of its sockets watches the room, and one for frames addressed to
// sessions (revocations, rare), which every instance hears, as each keeps a cache of revoked
// sessions.

/** The channel of one user's frames. No hash tag: on a cluster, users spread over the shards. */
export const userChannel = (userID: string) => `parley:user:${userID}`
/** The channel of the frames for the sockets watching a room (`case/watch`). */
export const watchChannel = (roomID: string) => `parley:watch:${roomID}`
/** Frames addressed to sessions (`session/revoked`): every instance subscribes. */
export const SESSIONS_CHANNEL = 'parley:sessions'

/**
 * What travels on a channel. `seq` numbers one instance's publishes on this channel 1, 2, 3…; a
 * notice (no `event`) repeats the last number used, after a publish failed, so the gap is seen.
 */
export interface Envelope {
  origin: string
  seq: number
  /** Whom on this channel the frame is for: the channel's user or room's watchers (less a session), or sessions. */
  audience?: Audience
  /** The frame (named `event` on the channel, which instances of every version share). */
  event?: Frame
}

export function parseEnvelope(raw: string): Envelope | undefined {
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

/** The channels a frame for `audience` is published on, each with the part of the audience it serves. */
export function channelsOf(audience: Audience): [string, Audience][] {
  const except = audience.exceptSessionID === undefined ? {} : { exceptSessionID: audience.exceptSessionID }
  const routes = [...new Set(audience.userIDs ?? [])].map((userID): [string, Audience] => [
    userChannel(userID),
    { userIDs: [userID], ...except },
  ])
  // A room's watchers that are among `userIDs` have the frame on their user's channel.
  const reachedUsers = audience.userIDs?.length ? { exceptUserIDs: audience.userIDs } : {}
  for (const roomID of new Set(audience.watchedRoomIDs ?? []))
    routes.push([watchChannel(roomID), { watchedRoomIDs: [roomID], ...reachedUsers, ...except }])
  if (audience.sessionIDs?.length) routes.push([SESSIONS_CHANNEL, { sessionIDs: audience.sessionIDs }])
  return routes
}

/** The audience a channel serves, for closing its sockets when its frames may have been lost. */
export function audienceOfChannel(channel: string): Audience | undefined {
  const [users, rooms] = [userChannel(''), watchChannel('')]
  if (channel.startsWith(users)) return { userIDs: [channel.slice(users.length)] }
  if (channel.startsWith(rooms)) return { watchedRoomIDs: [channel.slice(rooms.length)] }
  return undefined
}

/**
 * The publisher's numbers, one sequence per channel. Only the channels used most recently are
 * remembered (the oldest is forgotten past `limit`); a channel forgotten starts again at 1, which
 * receivers accept as a new sequence.
 */
export class ChannelNumbers {
  private readonly last = new Map<string, number>()

  constructor(private readonly limit = 100_000) {}

  next(channel: string): number {
    const seq = (this.last.get(channel) ?? 0) + 1
    this.last.delete(channel)
    this.last.set(channel, seq)
    if (this.last.size > this.limit) this.last.delete(this.last.keys().next().value as string)
    return seq
  }

  /** The number last used on `channel` (0 if forgotten): what a notice repeats. */
  current(channel: string): number {
    return this.last.get(channel) ?? 0
  }
}

/**
 * What one subscribed channel heard from each other instance since its subscription began. An
 * event must be the next number (or 1: its publisher started the sequence again); a notice, the
 * number last heard (a notice from an instance not heard yet may be about an event lost here). The
 * first event heard from an instance is taken as it comes.
 */
export class HeardNumbers {
  private readonly last = new Map<string, number>()

  /** Records `seq` from `origin`; false when something between was lost. */
  record(origin: string, seq: number, isEvent: boolean): boolean {
    const last = this.last.get(origin)
    this.last.set(origin, seq)
    if (!isEvent) return seq === last
    return last === undefined || seq === last + 1 || seq === 1
  }
}
