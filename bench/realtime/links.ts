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

/** A raw WebSocket; `frame` makes what it sends. */
export function openWebSocket(
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

/** A Socket.IO client (WebSocket transport), known to the relay as `id`. */
export function openSocketIO(url: string, id: string): Promise<Link> {
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
