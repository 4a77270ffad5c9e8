import { describe, expect, test } from 'vitest'
import { Heard } from './conversation'
import { message } from './fixtures'
import type { Message } from './types'

// A case view's messages as loads and live events arrive in every order.

const edited = (original: Message, body: string): Message => ({ ...original, body, edited: 1 })

describe("a case's messages", () => {
  test('an edit heard while a load is under way is not undone by the older answer', () => {
    const heard = new Heard()
    const original = { ...message('room', 'visitor'), body: 'my parcel is lots' }
    const mark = heard.mark()
    heard.hear([edited(original, 'my parcel is lost')])
    // The server read the message before the edit was saved.
    expect(heard.unheardSince([original], mark)).toEqual([])
  })

  test("a load begun after the message was heard answers with the message's latest form", () => {
    const heard = new Heard()
    const original = message('room', 'visitor')
    heard.hear([original])
    const mark = heard.mark()
    const later = edited(original, 'changed meanwhile')
    expect(heard.unheardSince([later], mark)).toEqual([later])
  })

  test('messages heard since the load began are left out of its answer, the others kept', () => {
    const heard = new Heard()
    const [a, b, c] = [message('room', 'visitor'), message('room', 'agent'), message('room', 'visitor')]
    heard.hear([a])
    const mark = heard.mark()
    heard.hear([b])
    expect(heard.unheardSince([a, b, c], mark)).toEqual([a, c])
  })
})
