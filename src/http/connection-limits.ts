import type { Socket } from 'node:net'
import proxyAddr from '@fastify/proxy-addr'
import type { FastifyInstance } from 'fastify'
import { AppError } from '../errors/app-error.js'

// What one client can hold of the server's connections (docs/reference/limits.md): each request
// must arrive within its time limits, and one address holds a bounded number of connections, so
// slow or idle clients cannot use up the process's file descriptors.

/** Fastify's options (and Node's, under `http`) for the time limits (config's httpTimeouts). */
export function timeoutOptions(timeouts: {
  headersMs: number
  requestMs: number
  idleMs: number
  keepAliveMs: number
}) {
  const { headersMs, requestMs, idleMs, keepAliveMs } = timeouts
  return {
    requestTimeout: requestMs,
    connectionTimeout: idleMs,
    keepAliveTimeout: keepAliveMs,
    http: {
      // Node checks the headers limit against this one as it creates the server (Fastify sets it
      // only after): without it, a headers limit over Node's default 300 s would not start.
      requestTimeout: requestMs,
      headersTimeout: headersMs,
      // Node looks for overdue requests every 30 s by default, which would let a 10 s limit run
      // to 40: a tenth of the shortest limit, at most a second, keeps each within 10 %.
      connectionsCheckingInterval: Math.max(1, Math.min(1000, Math.round(headersMs / 10))),
    },
  }
}

/** How many of something each key holds at once, up to `max`. */
export class Slots {
  private readonly held = new Map<string, number>()

  constructor(private readonly max: number) {}

  /** Takes one for `key`: its release (which counts once), or undefined when `key` holds `max`. */
  take(key: string): (() => void) | undefined {
    const count = this.held.get(key) ?? 0
    if (count >= this.max) return undefined
    this.held.set(key, count + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const left = (this.held.get(key) ?? 1) - 1
      if (left === 0) this.held.delete(key)
      else this.held.set(key, left)
    }
  }
}

/** Whether a peer is a proxy whose X-Forwarded-For is believed: Fastify's rule for TRUST_PROXY. */
function trustedProxy(trustProxy: boolean | string[]): (address: string) => boolean {
  if (typeof trustProxy === 'boolean') return () => trustProxy
  const trusts = proxyAddr.compile(trustProxy)
  return (address) => trusts(address, 0)
}

/**
 * How many new connections in a row one address gets read at once. Node accepts one connection
 * per turn of its event loop, in the order they came, so a client whose request arrives behind a
 * burst (hundreds of WebSockets opened at once) waits for every connection ahead of it: cheap to
 * accept, but not if each one's handshake runs as well. Browsers open six at once.
 */
export const CONNECTIONS_READ_AT_ONCE = 8

/** An address's connections accepted since its last quiet turn, and those not read yet. */
interface Burst {
  accepted: number
  waiting: Socket[]
  acceptedThisTurn: boolean
}

/**
 * Reads an address's new connections (accepted paused) at once up to CONNECTIONS_READ_AT_ONCE in
 * a row; beyond that, in the order they came, CONNECTIONS_READ_AT_ONCE per turn of the event loop
 * from the first turn in which the address opened nothing new. While a burst is still being
 * accepted, each turn costs an accept and no handshake, so everyone else's connections behind it
 * are reached soon.
 */
export class Pacer {
  private readonly bursts = new Map<string, Burst>()
  private scheduled = false

  admit(address: string, socket: Socket): void {
    const burst = this.bursts.get(address) ?? { accepted: 0, waiting: [], acceptedThisTurn: false }
    this.bursts.set(address, burst)
    burst.acceptedThisTurn = true
    if (burst.waiting.length === 0 && burst.accepted < CONNECTIONS_READ_AT_ONCE) {
      burst.accepted++
      socket.resume()
    } else burst.waiting.push(socket)
    this.schedule()
  }

  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => this.nextTurn())
  }

  private nextTurn(): void {
    this.scheduled = false
    for (const [address, burst] of this.bursts) {
      if (burst.acceptedThisTurn) {
        burst.acceptedThisTurn = false
        continue
      }
      burst.accepted = 0
      this.readSome(burst.waiting)
      if (burst.waiting.length === 0) this.bursts.delete(address)
    }
    if (this.bursts.size > 0) this.schedule()
  }

  private readSome(waiting: Socket[]): void {
    let read = 0
    while (read < CONNECTIONS_READ_AT_ONCE && waiting.length > 0) {
      const socket = waiting.shift() as Socket
      if (socket.destroyed) continue
      socket.resume()
      read++
    }
  }
}

/**
 * At most `perAddress` connections per client address, counted twice over:
 * - each TCP connection, by its peer's address, from the moment it opens (a client that sends
 *   nothing, or its headers slowly, has no request yet): one too many is closed at once, before
 *   anything is read from it. A trusted proxy's connections carry many clients and are not
 *   counted here.
 * - each request in progress and each open WebSocket, by the client's address (Fastify's
 *   request.ip, which follows TRUST_PROXY), before any credential or body is read: one too many
 *   is answered 429 (42900).
 * New connections are accepted paused (net.Server's `pauseOnConnect`, which http.Server does not
 * take as an option) and read as the pacer lets them.
 */
export function useConnectionLimits(
  app: FastifyInstance,
  { perAddress, trustProxy }: { perAddress: number; trustProxy: boolean | string[] },
): void {
  if (perAddress === 0) return
  const isProxy = trustedProxy(trustProxy)
  const sockets = new Slots(perAddress)
  const pacer = new Pacer()
  ;(app.server as { pauseOnConnect?: boolean }).pauseOnConnect = true
  app.server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress
    if (address === undefined || isProxy(address)) return void socket.resume()
    const release = sockets.take(address)
    if (!release) return void socket.destroy()
    socket.once('close', release)
    pacer.admit(address, socket)
  })
  const requests = new Slots(perAddress)
  app.addHook('onRequest', (request, reply, done) => {
    // An upgrade request (a WebSocket) lasts as long as its socket; any other, until answered.
    const upgrade = (request.raw as { upgrade?: boolean }).upgrade === true
    const release = requests.take(request.ip)
    if (release) {
      if (upgrade) request.raw.socket.once('close', release)
      else reply.raw.once('close', release)
      return done()
    }
    // Refused before the WebSocket plugin has seen the upgrade, which would close its socket:
    // closed here once the answer is written.
    if (upgrade) reply.raw.once('finish', () => request.raw.socket.destroy())
    done(new AppError('rateLimited', 'too many connections from this address'))
  })
}
