// A small custom chatbot for Parley: it verifies every delivery's signature with the public
// `standardwebhooks` library, echoes text, hands the case over when the visitor writes "agent"
// and closes it on "bye". On "menu" it offers quick replies (buttons, in the product family's
// `customData`): "Talk to agent" hands over like "agent", "Say hi" says hi.
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

/** The quick replies offered on "menu": WhatsApp-style reply buttons, as a JSON string. */
const MENU = JSON.stringify({
  type: 'interactive',
  interactive: {
    type: 'button',
    body: { text: 'What would you like to do?' },
    buttonAction: {
      buttons: [
        { type: 'reply', reply: { id: '/agent', title: 'Talk to agent' } },
        { type: 'reply', reply: { id: '/hi', title: 'Say hi' } },
      ],
    },
  },
})

/** What to do with one visitor message. */
function reply({ caseID, message }) {
  const text = message.type === 'text' ? message.text.body.trim() : ''
  // A quick reply the visitor chose: which button (or list row) it was.
  const choice = message.interactive?.button_reply ?? message.interactive?.list_reply
  const say = (body, extra = {}) => ({
    caseID,
    eventType: 'messages',
    // The delivery's message id as localID: a redelivery is answered only once.
    messages: [{ type: 'text', text: { body }, ...extra, localID: `echo-${message.id}` }],
  })
  if (choice?.id === '/hi') return say('Hi there!')
  if (/^menu$/i.test(text)) return say('What would you like to do?', { customData: MENU })
  if (choice?.id === '/agent' || /^agent$/i.test(text)) {
    return {
      caseID,
      eventType: 'handover_case',
      handoverCase: { chatbotHandoverSummary: 'The visitor asked for an agent.' },
    }
  }
  if (/^bye$/i.test(text)) return { caseID, eventType: 'close_case', closeCase: { sendClosingMessage: true } }
  return say(`You said: ${text || `a ${message.type}`}`)
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
