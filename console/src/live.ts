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
 * views to reload what they show, since events of the gap are not replayed.
 */
export class Live {
  private socket: WebSocket | undefined
  private listeners = new Set<Listener>()
  private attempt = 0
  private timer: ReturnType<typeof setTimeout> | undefined
  private stopped = true

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
      this.onState('open')
    }
    socket.onmessage = (frame) => {
      const event = JSON.parse(String(frame.data)) as LiveEvent
      if (event.eventName === 'session/revoked') return this.onRevoked()
      for (const listener of this.listeners) listener(event)
    }
    socket.onclose = (close) => {
      // A socket replaced or stopped meanwhile is no longer ours to reconnect.
      if (this.stopped || this.socket !== socket) return
      if (close.code === REVOKED) return this.onRevoked()
      this.onState('offline')
      const wait = RETRY_MS[Math.min(this.attempt++, RETRY_MS.length - 1)]
      this.timer = setTimeout(() => this.connect(), wait)
    }
  }
}
