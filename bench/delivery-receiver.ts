import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

// The delivery bench's receiver (a chatbot or an event endpoint that acknowledges at once), in a
// process of its own, as a customer's backend would be: the bench's 200 writers do not share its
// event loop. Over IPC: it sends {port} when listening; 'start' begins counting; 'count' answers
// {received}; 'stop' ends counting and answers {received, lags} (ms from the visitor's send, which
// each delivery carries, to its arrival).

let measuring = false
let received = 0
const lags: number[] = []

/** The visitor's send time a delivery carries: in a chatbot's message, or in a message.new event. */
function sentAtOf(body: string): number {
  const json = JSON.parse(body) as {
    message?: { text?: { body: string } }
    data?: { message?: { body: string } }
  }
  return Number(json.message?.text?.body ?? json.data?.message?.body)
}

const server = createServer((request, response) => {
  let body = ''
  request.on('data', (chunk) => {
    body += chunk
  })
  request.on('end', () => {
    response.writeHead(200).end('ok')
    const sentAt = sentAtOf(body)
    if (measuring && Number.isFinite(sentAt)) {
      received++
      lags.push(Date.now() - sentAt)
    }
  })
})
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }))
process.on('message', (message) => {
  if (message === 'start') measuring = true
  if (message === 'count') process.send?.({ received })
  if (message === 'stop') {
    measuring = false
    process.send?.({ received, lags })
  }
})
process.on('disconnect', () => process.exit(0))
