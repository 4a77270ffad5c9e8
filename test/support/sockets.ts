import WebSocket from 'ws'

/** A real WebSocket client of /connect that records every frame it receives. */
export interface TestSocket {
  socket: WebSocket
  // biome-ignore lint/suspicious/noExplicitAny: frames are asserted field by field
  frames: any[]
  /** Whether each frame (by index in `frames`) came as a binary frame. */
  binary: boolean[]
  /** Resolves with the frames named `eventName` once there are `count` of them. */
  // biome-ignore lint/suspicious/noExplicitAny: frames are asserted field by field
  waitFor(eventName: string, count?: number, timeoutMs?: number): Promise<any[]>
  /** Resolves with the first frame (received so far or later) that satisfies `predicate`. */
  // biome-ignore lint/suspicious/noExplicitAny: frames are asserted field by field
  waitUntil(predicate: (frame: any) => boolean, timeoutMs?: number): Promise<any>
  /**
   * Resolves with every frame received up to and including the first that satisfies `predicate`:
   * all a socket got before a marker, duplicates included.
   */
  // biome-ignore lint/suspicious/noExplicitAny: frames are asserted field by field
  framesThrough(predicate: (frame: any) => boolean, timeoutMs?: number): Promise<any[]>
  send(frame: unknown): void
  closed: Promise<{ code: number; reason: string }>
  close(): Promise<void>
}

export function wsURL(httpURL: string): string {
  return `${httpURL.replace(/^http/, 'ws')}/connect`
}

export interface ConnectOptions {
  /** Put the token in ?authorization= instead of the header (as browsers must). */
  viaQuery?: boolean
  /** false: never answer pings (a dead client). */
  autoPong?: boolean
  /** More query parameters (e.g. the TapTalk.io SDK's `app_key`). */
  query?: Record<string, string>
}

export function connect(
  httpURL: string,
  accessToken: string,
  options: ConnectOptions = {},
): Promise<TestSocket> {
  const authorization = `Bearer ${accessToken}`
  const query = new URLSearchParams(options.query)
  if (options.viaQuery) query.set('authorization', authorization)
  const url = query.size > 0 ? `${wsURL(httpURL)}?${query}` : wsURL(httpURL)
  const socket = new WebSocket(url, {
    headers: options.viaQuery ? {} : { authorization },
    autoPong: options.autoPong ?? true,
  })
  const frames: unknown[] = []
  const binary: boolean[] = []
  const waiters = new Set<() => void>()
  socket.on('message', (raw, isBinary) => {
    frames.push(JSON.parse(raw.toString()))
    binary.push(isBinary)
    for (const check of waiters) check()
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  )
  /** Resolves once `look` finds something in the frames, checking on every new frame. */
  const until = <T>(look: () => T | undefined, what: string, timeoutMs: number) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check)
        reject(new Error(`timed out waiting for ${what}; have ${JSON.stringify(frames).slice(0, 500)}`))
      }, timeoutMs)
      const check = () => {
        const found = look()
        if (found === undefined) return
        clearTimeout(timer)
        waiters.delete(check)
        resolve(found)
      }
      waiters.add(check)
      check()
    })
  const testSocket: TestSocket = {
    socket,
    frames,
    binary,
    waitFor: (eventName, count = 1, timeoutMs = 5000) =>
      until(
        () => {
          const found = frames.filter((f) => (f as { eventName: string }).eventName === eventName)
          return found.length >= count ? found : undefined
        },
        `${count} ${eventName}`,
        timeoutMs,
      ),
    waitUntil: (predicate, timeoutMs = 5000) =>
      until(() => frames.find(predicate), 'a matching frame', timeoutMs),
    framesThrough: (predicate, timeoutMs = 5000) =>
      until(
        () => {
          const index = frames.findIndex(predicate)
          return index === -1 ? undefined : frames.slice(0, index + 1)
        },
        'a matching frame',
        timeoutMs,
      ),
    send: (frame) => socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
    closed,
    close: async () => {
      if (socket.readyState === WebSocket.CLOSED) return
      socket.close()
      await closed
    },
  }
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(testSocket))
    socket.once('error', reject)
  })
}

/** The HTTP answer to an upgrade the server refused. */
export function refusedUpgrade(httpURL: string, headers: Record<string, string>, query = '') {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const socket = new WebSocket(`${wsURL(httpURL)}${query}`, { headers })
    socket.on('open', () => reject(new Error('the upgrade was accepted')))
    socket.on('unexpected-response', (_request, response) => {
      let body = ''
      response.on('data', (chunk: Buffer) => {
        body += chunk
      })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(body) }))
    })
    socket.on('error', () => {})
  })
}
