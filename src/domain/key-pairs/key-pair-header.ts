// The header of a key pair (Server-Key, docs/reference/server-api.md; App-Key, the TapTalk.io SDKs):
// base64("<KEY_ID>:<KEY_SECRET>").

import { isText } from '../../lib/formats.js'

export function encodeKeyPair(id: string, secret: string): string {
  return Buffer.from(`${id}:${secret}`, 'utf8').toString('base64')
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/

/** The id and secret in a header value, or undefined when it is not of that form. */
export function decodeKeyPair(header: string | undefined): { id: string; secret: string } | undefined {
  if (!header || !BASE64.test(header)) return undefined
  const decoded = Buffer.from(header, 'base64').toString('utf8')
  // Invalid UTF-8 decodes to U+FFFD, but NUL survives, and PostgreSQL would refuse it in the lookup.
  if (!isText(decoded)) return undefined
  // Split at the first colon: ids never contain one, secrets never do either.
  const colon = decoded.indexOf(':')
  if (colon <= 0 || colon === decoded.length - 1) return undefined
  return { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) }
}
