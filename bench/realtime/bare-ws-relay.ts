import { once } from 'node:events'
import { createServer } from 'node:http'
import { Redis } from 'ioredis'
import { type WebSocket, WebSocketServer } from 'ws'

// The real-time baseline: a bare `ws` server that relays {to, body} frames to the socket of
// user `to`: no authentication, no storage. Real-time figures are compared to it. With REDIS_URL,
// it is the bare scale-out baseline of `--instances` instead: each instance subscribes to a channel
// per user it holds and publishes every frame to its recipient's channel, the least a fleet of
// relays sharing one Redis does.
const redisURL = process.env.REDIS_URL
const publisher = redisURL ? new Redis(redisURL) : undefined
const subscriber = redisURL ? new Redis(redisURL) : undefined
// Ready (`/readyz`) once both Redis connections are: a frame sent earlier would be lost.
let ready = !redisURL
if (publisher && subscriber)
  void Promise.all([once(publisher, 'ready'), once(subscriber, 'ready')]).then(() => {
    ready = true
  })
const server = createServer((request, response) => {
  const up = request.url === '/healthz' || (request.url === '/readyz' && ready)
  response.writeHead(up ? 200 : request.url === '/readyz' ? 503 : 404).end('{}')
})
const sockets = new Map<string, WebSocket>()
const deliver = (to: string, body: string) =>
  sockets.get(to)?.send(JSON.stringify({ eventName: 'chat/sendMessage', data: { body } }))
/** A Redis command's failure ends the relay with its error: a baseline that drops frames is no baseline. */
const orExit = (command: Promise<unknown> | undefined) =>
  void command?.catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
subscriber?.on('message', (channel: string, body: string) => deliver(channel.slice('relay:'.length), body))

new WebSocketServer({ server }).on('connection', (socket, request) => {
  const id = new URL(request.url ?? '/', 'http://relay').searchParams.get('id') ?? ''
  sockets.set(id, socket)
  orExit(subscriber?.subscribe(`relay:${id}`))
  socket.on('close', () => {
    sockets.delete(id)
    orExit(subscriber?.unsubscribe(`relay:${id}`))
  })
  socket.on('message', (raw) => {
    const { to, body } = JSON.parse(raw.toString()) as { to: string; body: string }
    if (publisher) orExit(publisher.publish(`relay:${to}`, body))
    else deliver(to, body)
  })
})
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1')
