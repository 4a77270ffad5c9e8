import { describe, expect, test } from 'vitest'
import { aCase, message, other, tick, viewer } from './fixtures'
import { type Action, EMPTY, reduce, type State } from './inbox'
import type { Case, Message } from './types'

// The inbox's lists as events and loads arrive in every order.

const admin = { ...viewer, role: 'admin' as const }

const run = (actions: Action[], from: State = EMPTY) => actions.reduce(reduce, from)
const ids = (cases: Case[]) => cases.map((c) => c.caseID)
const loaded = (load: number, lists: Partial<State['lists']>, who = viewer): Action => ({
  type: 'loaded',
  load,
  viewer: who,
  lists: { queue: [], mine: [], closed: [], ...lists },
})
/** A load from start to answer, with nothing in between. */
const fresh = (lists: Partial<State['lists']>): Action[] => [{ type: 'loading', load: 9 }, loaded(9, lists)]

describe('inbox', () => {
  test('an event that arrives while a load is under way is not undone by the older answer', () => {
    const waiting = aCase('A')
    const taken = { ...waiting, status: 'assigned' as const, agentAccountID: other, updated: tick() }
    const state = run([
      { type: 'loading', load: 1 },
      { type: 'case', case: taken, viewer },
      loaded(1, { queue: [waiting] }), // the server answered before the colleague took it
    ])
    expect(ids(state.lists.queue)).toEqual([])
  })

  test('a late answer of an older load is ignored; a case older than the one shown changes nothing', () => {
    const closed = aCase('B', { status: 'closed', updated: 5000 })
    const state = run([
      { type: 'loading', load: 1 },
      { type: 'loading', load: 2 },
      loaded(2, { closed: [closed] }),
      loaded(1, { queue: [aCase('B', { updated: 10 })] }),
      { type: 'case', case: aCase('B', { status: 'assigned', agentAccountID: 'me', updated: 4000 }), viewer },
    ])
    expect(ids(state.lists.closed)).toEqual(['B'])
    expect(ids(state.lists.queue)).toEqual([])
    expect(ids(state.lists.mine)).toEqual([])
  })

  test("the queue is the agent's topics', longest waiting first", () => {
    const state = run(
      fresh({
        queue: [
          aCase('new', { updated: 300 }),
          aCase('old', { updated: 100 }),
          aCase('billing', { topicID: 2 }),
        ],
      }),
    )
    expect(ids(state.lists.queue)).toEqual(['old', 'new'])
    expect(
      ids(run([{ type: 'case', case: aCase('billing2', { topicID: 2 }), viewer }], state).lists.queue),
    ).toEqual(['old', 'new'])
  })

  test("an admin's queue holds every waiting case, also of topics nobody works, and follows it as it moves", () => {
    const billing = aCase('billing', { topicID: 2 })
    let state = run([{ type: 'loading', load: 3 }, loaded(3, { queue: [billing] }, admin)])
    expect(ids(state.lists.queue)).toEqual(['billing'])
    // Moved to a third topic nobody works: still in the admin's queue, and news.
    state = run(
      [{ type: 'case', case: aCase('mine', { status: 'assigned', agentAccountID: 'me' }), viewer: admin }],
      state,
    )
    state = run([{ type: 'case', case: aCase('mine', { topicID: 3 }), viewer: admin }], state)
    expect(ids(state.lists.queue)).toEqual(['billing', 'mine'])
    expect(ids(state.lists.mine)).toEqual([])
    // An agent of topic 1 does not see them.
    expect(ids(run([{ type: 'case', case: aCase('returns', { topicID: 3 }), viewer }]).lists.queue)).toEqual(
      [],
    )
  })

  test('arrivals and visitor messages are unread until opened; system and own messages are not; gone cases forget', () => {
    const item = aCase('C', { status: 'assigned', agentAccountID: 'me' })
    let state = run([
      ...fresh({ mine: [item] }),
      { type: 'message', message: message(item.roomID, item.userID), viewer, hidden: false },
      { type: 'message', message: message(item.roomID, item.userID), viewer, hidden: false },
      { type: 'message', message: message(item.roomID, 'system', 9001), viewer, hidden: false },
      { type: 'message', message: message(item.roomID, 'agent:me'), viewer, hidden: false },
    ])
    expect(state.unread).toEqual({ C: 2 })
    state = run([{ type: 'open', caseID: 'C' }], state)
    expect(state.unread).toEqual({})
    // Open, but the console is in a background tab: it counts.
    state = run(
      [{ type: 'message', message: message(item.roomID, item.userID), viewer, hidden: true }],
      state,
    )
    expect(state.unread).toEqual({ C: 1 })
    state = run(
      [
        { type: 'open', caseID: '' },
        { type: 'case', case: aCase('D'), viewer },
      ],
      state,
    )
    expect(state.unread).toEqual({ C: 1, D: 1 })
    state = run([{ type: 'case', case: { ...item, status: 'closed', updated: tick() }, viewer }], state)
    expect(state.unread).toEqual({ D: 1 })
  })

  test('older closed pages continue from the last server page, without repeats', () => {
    const page = Array.from({ length: 30 }, (_, i) =>
      aCase(`P${String(i).padStart(2, '0')}`, { status: 'closed', created: 100 - i }),
    )
    let state = run(fresh({ closed: page }))
    expect(state.moreClosed).toBe(true)
    // A case closed live (created long ago) sorts to the end; the cursor stays the server's.
    state = run([{ type: 'case', case: aCase('ancient', { status: 'closed', created: 1 }), viewer }], state)
    expect(state.closedCursor?.caseID).toBe('P29')
    state = run(
      [
        {
          type: 'olderClosed',
          cases: [
            aCase('P29', { status: 'closed', created: 71 }),
            aCase('Q', { status: 'closed', created: 50 }),
          ],
        },
      ],
      state,
    )
    expect(ids(state.lists.closed).filter((id) => id === 'P29')).toHaveLength(1)
    expect(state.moreClosed).toBe(false)
  })

  test("a row keeps its visitor and shows the newest message someone said as its last, not Parley's notes", () => {
    const visitor = { userID: 'visitor-R', xcUserID: 'r', fullName: 'Rosa' }
    const said = (from: string, body: string, fullname: string) =>
      ({ ...message('room-R', from), body, created: tick(), user: { userID: from, fullname } }) as Message
    const first = said('visitor-R', '  Where   is\nit? ', 'Rosa')
    let state = run(
      fresh({ mine: [{ ...aCase('R', { status: 'assigned', agentAccountID: 'me' }), visitor }] }),
    )
    state = run([{ type: 'message', message: first, viewer, hidden: false }], state)
    expect(state.lists.mine[0]?.lastMessage).toMatchObject({
      preview: 'Where is it?',
      senderRole: 'visitor',
      senderName: 'Rosa',
    })
    // My own reply is a last message too (not unread); Parley's note after it and an older one are not.
    state = run([{ type: 'message', message: said('agent:me', 'On it', 'Me'), viewer, hidden: false }], state)
    expect(state.lists.mine[0]?.lastMessage).toMatchObject({ preview: 'On it', senderRole: 'agent' })
    expect(state.unread.R).toBe(1)
    state = run(
      [
        {
          type: 'message',
          message: { ...said('system', 'The case was closed', 'Parley'), type: 9001 },
          viewer,
          hidden: false,
        },
      ],
      state,
    )
    expect(state.lists.mine[0]?.lastMessage?.preview).toBe('On it')
    state = run(
      [{ type: 'message', message: { ...first, messageID: 'old', created: 1 }, viewer, hidden: false }],
      state,
    )
    expect(state.lists.mine[0]?.lastMessage?.preview).toBe('On it')
    // An action's answer (a plain case) keeps what the row knew.
    state = run([{ type: 'case', case: aCase('R', { status: 'closed', updated: tick() }), viewer }], state)
    expect(state.lists.closed[0]).toMatchObject({ visitor, lastMessage: { preview: 'On it' } })
  })
})
