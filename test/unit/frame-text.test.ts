import { expect, test } from 'vitest'
import { frameOf } from '../../src/realtime/connections.js'

// Parley's own clients read each event as the JSON text of {eventName, id?, data}
// (realtime/connections.ts makes the data's JSON once per object, for the event and the answer).

test('a frame is the JSON of the event, with and without an id, for every kind of data', () => {
  const message = { messageID: '1', body: 'a "quoted" \u2028 line', room: { roomID: 'r' }, data: {} }
  const events = [
    { eventName: 'chat/sendMessage', data: message },
    { eventName: 'chat/sendMessage', id: 7, data: message },
    { eventName: 'chat/sendMessage', id: 'a"b', data: message },
    { eventName: 'error', id: null, data: { status: 400 } },
    { eventName: 'user/status', data: [1, { online: true }] },
    { eventName: 'x', data: null },
    { eventName: 'x', data: 'text' },
    { eventName: 'x', id: { nested: [1] }, data: 3 },
  ]
  for (const event of events) expect(frameOf(event)).toBe(JSON.stringify(event))
})

test("the answer to a send and the others' event carry the same data", () => {
  const message = { messageID: '1', body: 'hello' }
  const event = JSON.parse(frameOf({ eventName: 'chat/sendMessage', data: message }) as string)
  const answer = JSON.parse(frameOf({ eventName: 'chat/sendMessage', id: 1, data: message }) as string)
  expect(answer).toEqual({ ...event, id: 1 })
})
