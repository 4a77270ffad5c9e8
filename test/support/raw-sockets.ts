import { connect, type Socket } from 'node:net'

/** A TCP connection to a test server, written to by hand, recording what comes back. */
export interface RawSocket {
  socket: Socket
  /** Everything received so far. */
  received(): string
  /** Resolves with everything received once the server has closed the connection. */
  closed: Promise<string>
  /** Resolves once the connection is open. */
  opened: Promise<void>
}

/** Opens a connection to `url`'s host and port, from `localAddress` (another loopback address: another client). */
export function openRaw(url: string, localAddress?: string): RawSocket {
  const { hostname, port } = new URL(url)
  const socket = connect({ port: Number(port), host: hostname, ...(localAddress ? { localAddress } : {}) })
  const chunks: Buffer[] = []
  socket.on('data', (chunk) => chunks.push(chunk))
  // A reset is a close too: the test reads what came before it.
  socket.on('error', () => {})
  const received = () => Buffer.concat(chunks).toString('utf8')
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received())))
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('close', () => reject(new Error('closed before it opened')))
  })
  opened.catch(() => {})
  return { socket, received, closed, opened }
}

/**
 * Resolves with `promise`'s value, or rejects after `ms` naming `what`: a bound on waiting for an
 * event that the code under test should bring about (a test failing on the old code ends here).
 */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not within ${ms} ms: ${what}`)), ms)
  })
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer))
}

export interface RawAnswer {
  status: number
  body: string
}

/** The first answer in raw HTTP `text` once it has all come (by its Content-Length); else undefined. */
export function firstAnswer(text: string): RawAnswer | undefined {
  const end = text.indexOf('\r\n\r\n')
  if (end === -1) return undefined
  const head = text.slice(0, end)
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
  const body = text.slice(end + 4, end + 4 + length)
  if (Buffer.byteLength(body) < length) return undefined
  return { status: Number(head.split(' ')[1]), body }
}

/** Resolves with the first answer on `raw`, as soon as it has all come (the connection may stay open). */
export function answerOn(raw: RawSocket): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const look = () => {
      const answer = firstAnswer(raw.received())
      if (!answer) return
      raw.socket.off('data', look)
      resolve(answer)
    }
    raw.socket.on('data', look)
    raw.closed.then(() => {
      look()
      reject(new Error(`closed without a whole answer: ${JSON.stringify(raw.received().slice(0, 300))}`))
    })
  })
}
