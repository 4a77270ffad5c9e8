import type { WebSocket } from 'ws'
import type { ClientIdentity } from '../domain/sessions/access-tokens.js'
import type { Audience } from './hub.js'

/**
 * What a socket is sent: `{"eventName", "data"}`, a catalogued frame (contract/frames.ts) or the
 * answer to a client's frame (named as it, with its `id`).
 */
export interface OutgoingFrame {
  eventName: string
  data: unknown
  id?: unknown
}

/**
 * How a socket's client speaks, when not as Parley's own clients do (one JSON text frame per
 * event): the compatibility layer for another product's SDKs gives one (see src/compat).
 */
export interface Dialect {
  /** A server event (or an answer) as a frame this client reads. */
  encode(event: OutgoingFrame): string | Buffer
  /** A client frame, already parsed from JSON, as Parley's gateway reads it. */
  decode(frame: Record<string, unknown>): Record<string, unknown>
}

/** An event (or an answer, with the frame's id) as the frame a client of `dialect` (Parley's own: none) reads. */
export const frameOf = (event: OutgoingFrame, dialect?: Dialect): string | Buffer =>
  dialect ? dialect.encode(event) : ownFrame(event)

/**
 * The JSON of events' data objects, made once: a message sent goes out twice, as the event to the
 * other sockets and as the answer to its sender, with the same data. An event's data is not
 * changed once published (every socket it reaches shares it).
 */
const dataJSON = new WeakMap<object, string>()

/** `JSON.stringify(event)`, the same text, its data's JSON made once per data object. */
function ownFrame({ eventName, id, data }: OutgoingFrame): string {
  if (typeof data !== 'object' || data === null) return JSON.stringify({ eventName, id, data })
  let json = dataJSON.get(data)
  if (json === undefined) {
    json = JSON.stringify(data)
    dataJSON.set(data, json)
  }
  const head = JSON.stringify(id === undefined ? { eventName } : { eventName, id })
  return `${head.slice(0, -1)},"data":${json}}`
}

/** One open socket of one session. */
export class Connection {
  /** Pings sent since the last pong. */
  missedPongs = 0
  /** Frames from this socket are handled one at a time, in order. */
  queue: Promise<void> = Promise.resolve()
  /** The rooms this socket watches (`case/watch`), each with what ends its hold on the hub. */
  readonly watching = new Map<string, () => void>()

  constructor(
    readonly socket: WebSocket,
    readonly client: ClientIdentity,
    readonly socketID: string,
    readonly isAgent = false,
    readonly dialect?: Dialect,
  ) {}

  /** Sends a frame unless the client has stopped reading: then it is cut off (slow consumer). */
  send(frame: string | Buffer, maxBufferedBytes: number): void {
    if (this.socket.readyState !== this.socket.OPEN) return
    if (this.socket.bufferedAmount > maxBufferedBytes) {
      this.socket.terminate()
      return
    }
    this.socket.send(frame)
  }
}

/** This instance's open sockets, by user, by session and by the rooms they watch. */
export class Connections {
  private readonly byUser = new Map<string, Set<Connection>>()
  private readonly bySession = new Map<string, Set<Connection>>()
  private readonly byWatchedRoom = new Map<string, Set<Connection>>()

  add(connection: Connection): void {
    addTo(this.byUser, connection.client.userID, connection)
    addTo(this.bySession, connection.client.sessionID, connection)
  }

  /** Whether one more socket for `client` stays within its session's and its user's caps. */
  admits(client: ClientIdentity, caps: { perSession: number; perUser: number }): boolean {
    return (
      (this.bySession.get(client.sessionID)?.size ?? 0) < caps.perSession &&
      (this.byUser.get(client.userID)?.size ?? 0) < caps.perUser
    )
  }

  remove(connection: Connection): void {
    removeFrom(this.byUser, connection.client.userID, connection)
    removeFrom(this.bySession, connection.client.sessionID, connection)
    for (const roomID of [...connection.watching.keys()]) this.unwatch(connection, roomID)
  }

  /** The socket hears the room's frames from now on; `release` ends the hold that brings them here. */
  watch(connection: Connection, roomID: string, release: () => void): void {
    // Watched already: one hold is enough.
    if (connection.watching.has(roomID)) {
      release()
      return
    }
    connection.watching.set(roomID, release)
    addTo(this.byWatchedRoom, roomID, connection)
  }

  unwatch(connection: Connection, roomID: string): void {
    connection.watching.get(roomID)?.()
    connection.watching.delete(roomID)
    removeFrom(this.byWatchedRoom, roomID, connection)
  }

  all(): Connection[] {
    return [...this.bySession.values()].flatMap((set) => [...set])
  }

  /** The sockets an audience names here, each once. */
  reached(audience: Audience): Set<Connection> {
    const targets = new Set<Connection>()
    for (const userID of audience.userIDs ?? []) for (const c of this.byUser.get(userID) ?? []) targets.add(c)
    for (const sessionID of audience.sessionIDs ?? [])
      for (const c of this.bySession.get(sessionID) ?? []) targets.add(c)
    const reachedUsers = new Set(audience.exceptUserIDs)
    for (const roomID of audience.watchedRoomIDs ?? [])
      for (const c of this.byWatchedRoom.get(roomID) ?? [])
        if (!reachedUsers.has(c.client.userID)) targets.add(c)
    for (const c of targets) if (c.client.sessionID === audience.exceptSessionID) targets.delete(c)
    return targets
  }

  /** Sends the event (serialised once) to every socket of the audience on this instance. */
  deliver(audience: Audience, event: OutgoingFrame, maxBufferedBytes: number): Set<Connection> {
    const targets = this.reached(audience)
    if (targets.size === 0) return targets
    // Serialised once per dialect.
    const frames = new Map<Dialect | undefined, string | Buffer>()
    for (const connection of targets) {
      const { dialect } = connection
      let frame = frames.get(dialect)
      if (frame === undefined) {
        frame = frameOf(event, dialect)
        frames.set(dialect, frame)
      }
      connection.send(frame, maxBufferedBytes)
    }
    return targets
  }
}

function addTo(index: Map<string, Set<Connection>>, key: string, connection: Connection): void {
  const set = index.get(key) ?? new Set<Connection>()
  index.set(key, set.add(connection))
}

function removeFrom(index: Map<string, Set<Connection>>, key: string, connection: Connection): void {
  const set = index.get(key)
  set?.delete(connection)
  if (set?.size === 0) index.delete(key)
}
