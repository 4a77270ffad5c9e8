import { describe, expect, test } from 'vitest'
import { personalRoomID } from '../../packages/client/src/api.js'
import { backoffDelay } from '../../packages/client/src/backoff.js'
import { interactiveOf, quickReply, replyTitle } from '../../packages/client/src/index.js'

// The client SDK's pure parts: no server needed.

describe('backoff with full jitter', () => {
  const options = { minDelayMs: 500, maxDelayMs: 30_000 }
  test('draws between 0 and min(max, min * 2^attempt)', () => {
    expect([0, 1, 2, 10, 100].map((attempt) => backoffDelay(attempt, options, () => 0.999999))).toEqual([
      499, 999, 1999, 29_999, 29_999,
    ])
    expect(backoffDelay(3, options, () => 0)).toBe(0)
    expect(backoffDelay(3, options, () => 0.5)).toBe(2000)
  })
})

describe('personal room IDs', () => {
  test('are <smaller>-<larger>, compared as numbers (also past 2^53)', () => {
    expect(personalRoomID('99', '100')).toBe('99-100')
    expect(personalRoomID('382481116241588224', '382481116241588223')).toBe(
      '382481116241588223-382481116241588224',
    )
    expect(personalRoomID('agent:1', '100')).toBeUndefined()
  })
})

describe('interactiveOf', () => {
  const withCustomData = (customData: unknown) => ({ data: { customData } })
  const interactive = (content: unknown) =>
    withCustomData(JSON.stringify({ type: 'interactive', interactive: content }))

  test('is undefined for anything but interactive buttons or lists', () => {
    for (const message of [
      { data: {} },
      withCustomData(42),
      withCustomData('not json'),
      withCustomData('{"type":"text"}'),
      interactive({ type: 'button', body: { text: 'x' }, buttonAction: { buttons: [] } }),
      interactive({
        type: 'button',
        buttonAction: { buttons: [{ type: 'reply', reply: { id: 'a', title: 'A' } }] },
      }),
      interactive({
        type: 'list',
        body: { text: 'x' },
        listAction: { button: 'Go', sections: [{ rows: [] }] },
      }),
      interactive({ type: 'product', body: { text: 'x' } }),
    ]) {
      expect(interactiveOf(message)).toBeUndefined()
    }
  })

  test('keeps only the known fields, as strings; drops malformed buttons and rows', () => {
    const parsed = interactiveOf(
      interactive({
        type: 'list',
        header: { type: 'image', image: { link: 'https://example.com/a.png' } },
        body: { text: 'Pick', extra: true },
        listAction: {
          button: 'Topics',
          sections: [
            {
              title: 'A',
              rows: [
                { id: 'a1', title: 'One', description: 7 },
                { id: 2, title: 'bad' },
              ],
            },
            { rows: 'none' },
          ],
        },
      }),
    )
    expect(parsed).toEqual({
      type: 'list',
      body: { text: 'Pick' },
      listAction: { button: 'Topics', sections: [{ title: 'A', rows: [{ id: 'a1', title: 'One' }] }] },
    })
    const reply = quickReply(parsed as NonNullable<typeof parsed>, 'a1')
    expect(reply).toEqual({ type: 'list_reply', list_reply: { id: 'a1', title: 'One' } })
    expect(replyTitle(reply as NonNullable<typeof reply>)).toBe('One')
    expect(quickReply(parsed as NonNullable<typeof parsed>, 'missing')).toBeUndefined()
  })
})
