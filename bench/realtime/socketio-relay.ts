import { createServer } from 'node:http'
import { Server } from 'socket.io'

// The peer baseline (issue 21): a Socket.IO relay (WebSocket transport only) that passes
// {to, body} to user `to`'s socket as `chat/sendMessage` {body}: no authentication, no storage.
const server = createServer((request, response) => {
  if (request.url === '/healthz') response.writeHead(200).end('{}')
})
const sockets = new Map<string, string>()
const io = new Server(server, { transports: ['websocket'], serveClient: false })
io.on('connection', (socket) => {
  const id = String(socket.handshake.query.id ?? '')
  sockets.set(id, socket.id)
  socket.on('disconnect', () => sockets.delete(id))
  socket.on('send', ({ to, body }: { to: string; body: string }) => {
    const target = sockets.get(to)
    if (target) io.to(target).emit('chat/sendMessage', { body })
  })
})
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1')
