import { describe, expect, test } from 'vitest'
import { aCase, message, other, tick, viewer } from './fixtures'
import { EMPTY } from './inbox'
import { newsOf, type Situation } from './notify'
import type { AgentCase, CaseRow, LiveEvent, Message } from './types'

// Which events the console chimes and notifies for, and which it keeps quiet about.

const mine = aCase('M', { status: 'assigned', agentAccountID: 'me' })
const situation = (changes: Partial<Situation> = {}): Situation => ({
  me: viewer,
  lists: { ...EMPTY.lists, mine: [mine] },
  openCaseID: '',
  hidden: false,
  ...changes,
})
const update = (item: CaseRow): LiveEvent => ({ eventName: 'case/update', data: item as AgentCase })
const said = (roomID: string, from: string, body: string, type?: number): LiveEvent => ({
  eventName: 'chat/sendMessage',
  data: { ...message(roomID, from, type), body, user: { userID: from, fullname: 'Vera Visitor' } } as Message,
})

describe('notifications', () => {
  test('a case that comes to me is news, unless it is the case I am looking at (I took it)', () => {
    const assigned = aCase('N', {
      status: 'assigned',
      agentAccountID: 'me',
      visitor: { userID: 'v', xcUserID: 'x', fullName: 'Nina' },
    } as Partial<CaseRow>)
    expect(newsOf(update(assigned), situation())).toEqual({
      title: 'A case came to you',
      body: 'Nina',
      caseID: 'N',
    })
    expect(newsOf(update(assigned), situation({ openCaseID: 'N' }))).toBeUndefined()
    // Looking at it in a hidden tab is not looking: an admin may have assigned it meanwhile.
    expect(newsOf(update(assigned), situation({ openCaseID: 'N', hidden: true }))?.caseID).toBe('N')
  })

  test('a case already mine, a colleague’s, a queued or a closed one is not news', () => {
    const events = [
      update({ ...mine, updated: tick() }),
      update(aCase('C', { status: 'assigned', agentAccountID: other })),
      update(aCase('Q')),
      update(aCase('X', { status: 'closed', agentAccountID: 'me' })),
    ]
    for (const event of events) expect(newsOf(event, situation({ hidden: true }))).toBeUndefined()
  })

  test("a visitor's message in my case is news only while the tab is hidden; mine, a bot's or Parley's never", () => {
    const visitor = said(mine.roomID, 'visitor-M', '  Where is\nmy order?  ')
    expect(newsOf(visitor, situation())).toBeUndefined()
    expect(newsOf(visitor, situation({ hidden: true }))).toEqual({
      title: 'Vera Visitor',
      body: 'Where is my order?',
      caseID: 'M',
    })
    for (const event of [
      said(mine.roomID, 'agent:me', 'on it'),
      said(mine.roomID, 'chatbot:b', 'hello'),
      said(mine.roomID, 'system', 'Case closed', 9001),
      said('room-elsewhere', 'visitor-Z', 'hi'),
    ])
      expect(newsOf(event, situation({ hidden: true }))).toBeUndefined()
  })

  test('a note mentioning me is news while the tab is hidden, clipped to one line', () => {
    const long = 'x'.repeat(300)
    const mention: LiveEvent = {
      eventName: 'agent/mention',
      data: {
        caseID: 'M',
        note: { text: `@ada look\n${long}` } as never,
        by: { agentAccountID: other, fullName: 'Carl' },
      },
    }
    expect(newsOf(mention, situation())).toBeUndefined()
    const news = newsOf(mention, situation({ hidden: true }))
    expect(news).toMatchObject({ title: 'Carl mentioned you', caseID: 'M' })
    expect(news?.body.startsWith('@ada look x')).toBe(true)
    expect(news?.body.length).toBe(140)
    expect(news?.body.endsWith('…')).toBe(true)
  })
})
