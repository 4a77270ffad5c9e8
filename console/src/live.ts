import type { LiveEvent } from './types'

export type LiveState = 'connecting' | 'open' | 'offline'
type Listener = (event: LiveEvent) => void

/** Waits between reconnection attempts: quick at first, then every 15 s. */
const RETRY_MS = [500, 1000, 2000, 5000, 15000]
/** Parley closes a socket with 4001 when its session is revoked (signed out). */
const REVOKED = 4001

/**
 * The console's `/connect` socket (the session cookie signs it in; the server checks the page's
 * origin). Once started it reconnects until stopped; after each (re)connection `onState('open')` tells the
 * views to reload what they show, since events of the gap are not replayed. The cases the views
 * show are watched (`case/watch`): their events come whoever the case is assigned to, and a
 * reconnection is announced once they are watched again, so that what the views reload misses nothing.
 */
export class Live {
  private socket: WebSocket | undefined
  private listeners = new Set<Listener>()
  private attempt = 0
  private timer: ReturnType<typeof setTimeout> | undefined
  private stopped = true
  /** The cases watched, each with when its watch took effect on this socket. */
  private watched = new Map<string, Promise<void>>()
  /** Watches sent and not yet answered, by frame id. */
  private answers = new Map<string, () => void>()
  private frames = 0

  constructor(
    private readonly onState: (state: LiveState) => void,
    private readonly onRevoked: () => void,
  ) {}

  start(): void {
    if (!this.stopped) return
    this.stopped = false
    this.connect()
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Hears the case's events from now on, until the returned function is called. */
  watch(caseID: string): () => void {
    this.watched.set(caseID, this.sendWatch(caseID))
    return () => {
      this.watched.delete(caseID)
      this.send('case/unwatch', caseID)
    }
  }

  /**
   * Settles once the case's events reach this console (at once while it is offline: the views
   * reload on reconnection, after it is watched again).
   */
  watching(caseID: string): Promise<void> {
    return this.watched.get(caseID) ?? Promise.resolve()
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
    this.socket?.close(1000)
    this.socket = undefined
  }

  private connect(): void {
    this.onState('connecting')
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws'
    const socket = new WebSocket(`${scheme}://${location.host}/connect`)
    this.socket = socket
    socket.onopen = () => {
      this.attempt = 0
      for (const caseID of this.watched.keys()) this.watched.set(caseID, this.sendWatch(caseID))
      void Promise.all(this.watched.values()).then(() => {
        if (this.socket === socket && socket.readyState === WebSocket.OPEN) this.onState('open')
      })
    }
    socket.onmessage = (frame) => {
      const event = JSON.parse(String(frame.data)) as LiveEvent & { id?: string }
      const answered = event.id === undefined ? undefined : this.answers.get(event.id)
      // The answer to a watch (or its error: the case view shows why it cannot show the case).
      if (answered) return answered()
      if (event.eventName === 'session/revoked') return this.onRevoked()
      for (const listener of this.listeners) listener(event)
    }
    socket.onclose = (close) => {
      for (const answered of this.answers.values()) answered()
      // A socket replaced or stopped meanwhile is no longer ours to reconnect.
      if (this.stopped || this.socket !== socket) return
      if (close.code === REVOKED) return this.onRevoked()
      this.onState('offline')
      const wait = RETRY_MS[Math.min(this.attempt++, RETRY_MS.length - 1)]
      this.timer = setTimeout(() => this.connect(), wait)
    }
  }

  /** Sends a watch; settles once answered (or at once when there is no open socket to send it on). */
  private sendWatch(caseID: string): Promise<void> {
    const id = this.send('case/watch', caseID)
    if (id === undefined) return Promise.resolve()
    return new Promise((resolve) =>
      this.answers.set(id, () => {
        this.answers.delete(id)
        resolve()
      }),
    )
  }

  /** Sends a frame about a case, if the socket is open: its id. */
  private send(eventName: 'case/watch' | 'case/unwatch', caseID: string): string | undefined {
    const socket = this.socket
    if (!socket || socket.readyState !== WebSocket.OPEN) return undefined
    const id = `${eventName}-${++this.frames}`
    socket.send(JSON.stringify({ eventName, id, data: { id: caseID } }))
    return id
  }
}
