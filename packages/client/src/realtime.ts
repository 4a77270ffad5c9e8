import { type BackoffOptions, backoffDelay, Sleeper } from './backoff.js'
import { ParleyError } from './errors.js'
import type { Session } from './session.js'
import type { Transport } from './transport.js'
import type { ConnectionState } from './types.js'

// The /connect socket (docs/reference/real-time.md). Before each attempt `GET /connect?check=1` proves the
// token (a refused upgrade says nothing a browser can read, while the check's 40104 asks for a
// refresh); the socket then carries the token in its URL, as browsers must. On any close it
// reconnects with exponential backoff and full jitter; a 4001 close (session revoked) needs a
// new ticket first. Each open socket starts with a resync, and a resync that fails closes the
// socket so that the whole procedure starts over.

/** The part of the WebSocket API the SDK uses: the browser's class and the `ws` package's fit. */
export interface WebSocketLike {
  readonly readyState: number
  send(data: string): void
  close(code?: number, reason?: string): void
  // Handlers are typed by what the SDK reads; `never` parameters let every platform's own event
  // types (the DOM's, ws's) stand in for them.
  onopen: ((event: never) => void) | null
  onmessage: ((event: never) => void) | null
  onclose: ((event: never) => void) | null
  onerror: ((event: never) => void) | null
}

export type WebSocketConstructor = new (url: string) => WebSocketLike

const OPEN = 1
/** A close code of the client's own: the resync after opening failed. */
const RESYNC_FAILED = 4000
/** The server's close code for a revoked session (logout, refresh-token replay). */
const SESSION_REVOKED = 4001

export interface RealtimeOptions {
  transport: Transport
  session: Session
  WebSocket: WebSocketConstructor
  backoff: Required<BackoffOptions>
  /** A socket not open after this long is given up (a host that never answers). */
  connectTimeoutMs: number
  /** One frame from the server. */
  onFrame(eventName: string, data: unknown): void
  /** A socket opened: resync; a rejection closes the socket and starts over. */
  onOpen(): Promise<void>
  /** The socket closed (or was closed): what arrives now must wait for the next resync. */
  onClose(): void
  onState(state: ConnectionState): void
}

type Outcome = 'live' | 'failed' | 'ended'

export class Realtime {
  state: ConnectionState = 'offline'
  private socket: WebSocketLike | undefined
  private running = false
  /** Each start() runs one loop; a loop whose generation has passed (a stop) ends. */
  private generation = 0
  private readonly sleeper = new Sleeper()

  constructor(private readonly options: RealtimeOptions) {}

  start(): void {
    if (this.running) return
    this.running = true
    void this.loop(++this.generation)
  }

  stop(): void {
    this.running = false
    this.generation++
    this.sleeper.cancel()
    const socket = this.socket
    this.socket = undefined
    socket?.close(1000, 'client stopped')
    this.options.onClose()
    this.setState('offline')
  }

  /** Closes the socket (a resync failed): the loop reconnects, and every room is read again. */
  reconnect(): void {
    this.socket?.close(RESYNC_FAILED, 'resync failed')
  }

  /** Sends a frame if a socket is open; false otherwise (typing notices are not worth keeping). */
  send(eventName: string, data: unknown): boolean {
    if (this.socket?.readyState !== OPEN || this.state !== 'open') return false
    this.socket.send(JSON.stringify({ eventName, data }))
    return true
  }

  private async loop(generation: number): Promise<void> {
    let attempt = 0
    while (generation === this.generation) {
      this.setState('connecting')
      const outcome = await this.connectOnce(generation)
      if (generation !== this.generation) return
      this.setState('offline')
      if (outcome === 'ended') {
        this.running = false
        return
      }
      // A socket that was live starts the count again; its first retry still waits a little.
      attempt = outcome === 'live' ? 0 : attempt + 1
      await this.sleeper.sleep(backoffDelay(attempt, this.options.backoff))
    }
  }

  private async connectOnce(generation: number): Promise<Outcome> {
    const { session } = this.options
    let token: string
    try {
      token = await session.authorized((accessToken) =>
        this.options.transport.get('/connect?check=1', accessToken).then(() => accessToken),
      )
    } catch (error) {
      return endedBy(error) ? 'ended' : 'failed'
    }
    if (generation !== this.generation) return 'failed'
    const { code, live } = await this.run(token)
    if (code !== SESSION_REVOKED) return live ? 'live' : 'failed'
    try {
      await session.renew(token)
      return 'failed'
    } catch (error) {
      return endedBy(error) ? 'ended' : 'failed'
    }
  }

  /** Opens a socket and resolves when it closes: its close code, and whether it got live. */
  private run(token: string): Promise<{ code: number; live: boolean }> {
    const base = this.options.transport.baseURL.replace(/^http/, 'ws')
    const url = `${base}/connect?authorization=${encodeURIComponent(`Bearer ${token}`)}`
    return new Promise((resolve) => {
      let socket: WebSocketLike
      try {
        socket = new this.options.WebSocket(url)
      } catch {
        return resolve({ code: 0, live: false })
      }
      this.socket = socket
      let live = false
      const giveUp = setTimeout(() => socket.close(), this.options.connectTimeoutMs)
      socket.onopen = () => {
        clearTimeout(giveUp)
        if (this.socket !== socket) return
        this.setState('open')
        this.options.onOpen().then(
          () => {
            live = true
          },
          () => this.reconnect(),
        )
      }
      socket.onmessage = (event: { data: unknown }) => {
        if (this.socket === socket) this.frame(event.data)
      }
      // An error is always followed by a close, which is where it is handled.
      socket.onerror = () => {}
      socket.onclose = (event: { code: number }) => {
        clearTimeout(giveUp)
        if (this.socket !== socket) return resolve({ code: event.code, live })
        this.socket = undefined
        this.options.onClose()
        resolve({ code: event.code, live })
      }
    })
  }

  private frame(raw: unknown): void {
    if (typeof raw !== 'string') return
    let frame: { eventName?: unknown; data?: unknown }
    try {
      frame = JSON.parse(raw) as typeof frame
    } catch {
      return
    }
    if (typeof frame?.eventName === 'string') this.options.onFrame(frame.eventName, frame.data)
  }

  private setState(state: ConnectionState): void {
    if (state === this.state) return
    this.state = state
    this.options.onState(state)
  }
}

const endedBy = (error: unknown) => error instanceof ParleyError && error.code === 'session_ended'
