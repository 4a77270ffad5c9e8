import { expect } from 'vitest'
import type { TestClient } from './clients.js'

// Client API calls the tests of contacts, blocks and room states make again and again.

/** The answer's `data`, once the envelope says no error. */
// biome-ignore lint/suspicious/noExplicitAny: answers are asserted field by field
export async function dataOf(client: TestClient, path: string, body: unknown = {}): Promise<any> {
  const reply = await client.call(path, body)
  expect(reply.json.error, `${path}: ${reply.text}`).toEqual({ code: '', message: '', field: '' })
  return reply.json.data
}

let sent = 0

/** Sends a text to a room (`roomID`) or a user (`recipientUserID`), with a fresh localID; the reply. */
export const sendText = (client: TestClient, to: Record<string, string>, body: string) =>
  client.call('/v1/chat/message/send', { ...to, localID: `text-${++sent}`, type: 1001, body })
