import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request a stand-in chatbot received. */
export interface BotRequest {
  /** The path it was sent to (one stand-in can be several endpoints). */
  url?: string
  headers: IncomingHttpHeaders
  body: string
  // biome-ignore lint/suspicious/noExplicitAny: asserted field by field
  json: any
}

/**
 * A real HTTP server standing in for a customer's chatbot: it records every request and answers
 * with the status `respond` chooses (200 by default).
 */
export async function startBot(respond: (request: BotRequest, index: number) => number = () => 200) {
  const requests: BotRequest[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => {
      body += chunk
    })
    req.on('end', () => {
      // A body that is not JSON is recorded as it came (json undefined), and still answered.
      const request = { url: req.url ?? '', headers: req.headers, body, json: parsed(body) }
      requests.push(request)
      res.writeHead(respond(request, requests.length - 1), { 'content-type': 'text/plain' }).end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/bot`,
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

const parsed = (body: string): unknown => {
  try {
    return JSON.parse(body)
  } catch {
    return undefined
  }
}
