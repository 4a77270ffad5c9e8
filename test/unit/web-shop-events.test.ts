import { Webhook } from 'standardwebhooks'
import { describe, expect, test } from 'vitest'
// @ts-expect-error: the example is plain JavaScript
import { onEvent, verifiedEvent } from '../../examples/web-shop/events.mjs'

// The web shop's use of message.new: it verifies Parley's signature (without a library) and logs
// "would push to <user>" for each recipient who is offline, once per webhook-id.
describe('examples/web-shop: events', () => {
  const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`
  const event = {
    type: 'message.new',
    timestamp: new Date().toISOString(),
    organizationID: '1',
    data: {
      message: { messageID: 'm1', body: 'Your parcel shipped' },
      recipients: [
        { userID: '2', xcUserID: 'shop:Ada', online: false },
        { userID: '3', xcUserID: 'shop:Grace', online: true },
      ],
    },
  }
  const body = JSON.stringify(event)
  const signed = (id: string, at = new Date()) => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  })

  test('a signed message.new: a push for the offline recipient only, once per webhook-id', () => {
    const lines: string[] = []
    const verified = verifiedEvent(secret, signed('d1'), body)
    expect(verified).toMatchObject({ id: 'd1', type: 'message.new' })
    onEvent(verified, (line: string) => lines.push(line))
    onEvent(verifiedEvent(secret, signed('d1'), body), (line: string) => lines.push(line))
    expect(lines).toEqual(['would push to shop:Ada: Your parcel shipped'])
  })

  test('a wrong signature, another body or an old timestamp is refused', () => {
    expect(verifiedEvent(secret, signed('d2'), `${body} `)).toBeUndefined()
    expect(
      verifiedEvent(`whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`, signed('d2'), body),
    ).toBeUndefined()
    expect(verifiedEvent(secret, signed('d2', new Date(Date.now() - 10 * 60_000)), body)).toBeUndefined()
  })
})
