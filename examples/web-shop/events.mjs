// Parley's events to the shop's backend (docs/reference/events.md): POST /events, signed as
// Standard Webhooks with the endpoint's `whsec_` secret (EVENTS_SECRET). On `message.new`, whoever
// is not connected right now would get a push notification: here the shop only logs it.
import { createHmac, timingSafeEqual } from 'node:crypto'

/** The event, if the signature is the endpoint secret's and the timestamp within 5 minutes. */
export function verifiedEvent(secret, headers, body, now = Date.now()) {
  const id = headers['webhook-id']
  const timestamp = headers['webhook-timestamp']
  const signatures = String(headers['webhook-signature'] ?? '').split(' ')
  if (!id || !timestamp || Math.abs(now / 1000 - Number(timestamp)) > 300) return undefined
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest()
  const valid = signatures.some((signature) => {
    const [version, value = ''] = signature.split(',')
    const given = Buffer.from(value, 'base64')
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected)
  })
  return valid ? { id, ...JSON.parse(body) } : undefined
}

const seen = new Set()

/** What the shop does with an event: `message.new` to recipients who are offline → a push. */
export function onEvent(event, log = console.log) {
  // The same webhook-id again is a retry of one already handled.
  if (seen.has(event.id)) return
  seen.add(event.id)
  if (event.type !== 'message.new') return
  const { message, recipients } = event.data
  for (const recipient of recipients) {
    if (!recipient.online && !recipient.muted) log(`would push to ${recipient.xcUserID}: ${message.body}`)
  }
}
