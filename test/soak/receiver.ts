import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** The tokens the soak load writes into every text: each names its driver and number. */
export const TOKEN = /soak-[a-z]+-\d+-\d+/g

/**
 * A webhook receiver (the chatbot, or an event endpoint): it notes each token it is delivered
 * under each `webhook-id`, and answers 200, or 500 while it is told to fail.
 */
export async function startReceiver() {
  /** token → the webhook-ids it came under */
  const received = new Map<string, Set<string>>()
  let failing = false
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      if (failing) {
        response.writeHead(500).end()
        return
      }
      const id = String(request.headers['webhook-id'] ?? '')
      for (const token of body.match(TOKEN) ?? []) {
        const ids = received.get(token) ?? new Set()
        ids.add(id)
        received.set(token, ids)
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    received,
    fail: (on: boolean) => {
      failing = on
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>
