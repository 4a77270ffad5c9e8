import { io } from 'socket.io-client'
import WebSocket from 'ws'

/** One client connection of the real-time benchmark, whatever the protocol. */
export interface Link {
  /** Sends a message to user `to` whose body is `body`. */
  send(to: string, localID: string, body: string): void
  /** Calls `received` with the body of every `chat/sendMessage` that arrives. */
  onMessage(received: (body: string) => void): void
  close(): void
}

/**
 * How to open one link: a raw WebSocket speaking Parley's frames or the bare relay's, or a
 * Socket.IO client (WebSocket transport) known to the relay by `id`. Plain data: the idle links
 * are opened by another process (idle-links.ts).
 */
export type Dial =
  | { kind: 'parley' | 'ws relay'; url: string; headers?: Record<string, string> }
  | { kind: 'Socket.IO'; url: string; id: string }

export function dial(how: Dial): Promise<Link> {
  if (how.kind === 'Socket.IO') return openSocketIO(how.url, how.id)
  return openWebSocket(how.url, how.headers ?? {}, how.kind === 'parley' ? parleyFrame : relayFrame)
}

const parleyFrame = (to: string, localID: string, body: string) =>
  JSON.stringify({ eventName: 'chat/sendMessage', data: { recipientUserID: to, localID, type: 1001, body } })

const relayFrame = (to: string, _localID: string, body: string) => JSON.stringify({ to, body })

function openWebSocket(
  url: string,
  headers: Record<string, string>,
  frame: (to: string, localID: string, body: string) => string,
): Promise<Link> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers })
    socket.once('error', reject)
    socket.once('open', () =>
      resolve({
        send: (to, localID, body) => socket.send(frame(to, localID, body)),
        onMessage: (received) =>
          socket.on('message', (raw) => {
            const { eventName, data } = JSON.parse(raw.toString()) as {
              eventName: string
              data: { body: string }
            }
            if (eventName === 'chat/sendMessage') received(data.body)
          }),
        close: () => socket.terminate(),
      }),
    )
  })
}

function openSocketIO(url: string, id: string): Promise<Link> {
  return new Promise((resolve, reject) => {
    const socket = io(url, { transports: ['websocket'], query: { id }, reconnection: false })
    socket.once('connect_error', reject)
    socket.once('connect', () =>
      resolve({
        send: (to, _localID, body) => socket.emit('send', { to, body }),
        onMessage: (received) =>
          socket.on('chat/sendMessage', (data: { body: string }) => received(data.body)),
        close: () => socket.disconnect(),
      }),
    )
  })
}

/** Runs `work` over `items`, `concurrency` at a time. */
export async function pool<T, R>(
  items: T[],
  concurrency: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++
        results[index] = await work(items[index] as T)
      }
    }),
  )
  return results
}
