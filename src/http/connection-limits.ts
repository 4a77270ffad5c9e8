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
 * At most `perAddress` connections per client address, counted twice over:
 * - each TCP connection, by its peer's address, from the moment it opens (a client that sends
 *   nothing, or its headers slowly, has no request yet): one too many is closed at once, before
 *   anything is read from it. A trusted proxy's connections carry many clients and are not
 *   counted here.
 * - each request in progress and each open WebSocket, by the client's address (Fastify's
 *   request.ip, which follows TRUST_PROXY), before any credential or body is read: one too many
 *   is answered 429 (42900).
 */
export function useConnectionLimits(
  app: FastifyInstance,
  { perAddress, trustProxy }: { perAddress: number; trustProxy: boolean | string[] },
): void {
  if (perAddress === 0) return
  const isProxy = trustedProxy(trustProxy)
  const sockets = new Slots(perAddress)
  app.server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress
    if (address === undefined || isProxy(address)) return
    const release = sockets.take(address)
    if (release) socket.once('close', release)
    else socket.destroy()
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
