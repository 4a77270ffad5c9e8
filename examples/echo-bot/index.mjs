// A small custom chatbot for Parley: it verifies every delivery's signature with the public
// `standardwebhooks` library, echoes text, hands the case over when the visitor writes "agent"
// and closes it on "bye".
//
//   PARLEY_WEBHOOK_URL=<webhookURL from `parley chatbot create`> SECRET_KEY=<secretKey> PORT=3000 \
//     node examples/echo-bot/index.mjs
//
// Register http://127.0.0.1:3000/ as the chatbot's URL.
import { createServer } from 'node:http'
import { Webhook } from 'standardwebhooks'

const webhookURL = process.env.PARLEY_WEBHOOK_URL
const secretKey = process.env.SECRET_KEY
if (!webhookURL || !secretKey) {
  console.error('set PARLEY_WEBHOOK_URL and SECRET_KEY (both from `parley chatbot create`)')
  process.exit(1)
}
const verifier = new Webhook(secretKey) // rejects signatures more than 5 minutes off

/** Answers Parley through its webhook (plain-text replies: "ok" or a reason). */
async function answer(event) {
  const response = await fetch(webhookURL, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'secret-key': secretKey },
    body: JSON.stringify(event),
  })
  if (!response.ok) console.error(`parley said ${response.status}: ${await response.text()}`)
}

/** What to do with one visitor message. */
function reply({ caseID, message }) {
  const text = message.type === 'text' ? message.text.body.trim() : ''
  if (/^agent$/i.test(text)) {
    return {
      caseID,
      eventType: 'handover_case',
      handoverCase: { chatbotHandoverSummary: 'The visitor asked for an agent.' },
    }
  }
  if (/^bye$/i.test(text)) return { caseID, eventType: 'close_case', closeCase: { sendClosingMessage: true } }
  const said = text || `a ${message.type}`
  return {
    caseID,
    eventType: 'messages',
    // The delivery's message id as localID: a redelivery is answered only once.
    messages: [{ type: 'text', text: { body: `You said: ${said}` }, localID: `echo-${message.id}` }],
  }
}

const server = createServer((request, response) => {
  let body = ''
  request.on('data', (chunk) => {
    body += chunk
  })
  request.on('end', () => {
    let delivery
    try {
      delivery = verifier.verify(body, {
        'webhook-id': request.headers['webhook-id'],
        'webhook-timestamp': request.headers['webhook-timestamp'],
        'webhook-signature': request.headers['webhook-signature'],
      })
    } catch {
      response.writeHead(401).end('bad signature')
      return
    }
    // Acknowledge at once; answer through the webhook afterwards.
    response.writeHead(200).end('ok')
    answer(reply(delivery)).catch((error) => console.error(error))
  })
})
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`echo bot listening on http://127.0.0.1:${server.address().port}/`)
})
