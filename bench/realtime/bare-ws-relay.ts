import { createServer } from 'node:http'
import { type WebSocket, WebSocketServer } from 'ws'

// The real-time baseline: a bare `ws` server that relays {to, body} frames to the socket of
// user `to`: no authentication, no storage, no fan-out. Real-time figures are compared to it.
const server = createServer((request, response) => {
  response.writeHead(request.url === '/healthz' ? 200 : 404).end('{}')
})
const sockets = new Map<string, WebSocket>()
new WebSocketServer({ server }).on('connection', (socket, request) => {
  const id = new URL(request.url ?? '/', 'http://relay').searchParams.get('id') ?? ''
  sockets.set(id, socket)
  socket.on('close', () => sockets.delete(id))
  socket.on('message', (raw) => {
    const { to, body } = JSON.parse(raw.toString()) as { to: string; body: string }
    sockets.get(to)?.send(JSON.stringify({ eventName: 'chat/sendMessage', data: { body } }))
  })
})
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1')
