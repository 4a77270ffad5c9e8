import { beforeAll, describe, expect, test } from 'vitest'
import { loadConfig } from '../../src/config/config.js'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { openCase } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect } from '../support/sockets.js'

// Item 7 of issue 18: an agent reopens a closed case within CASE_REOPEN_WINDOW_HOURS of its closing,
// and an organization's tags (labels) on cases, set by agents, used as filters, never shown to
// visitors.

const V = '/api/visitor/v1/client'
const HOUR = 3_600_000

describe('CASE_REOPEN_WINDOW_HOURS', () => {
  test('is 72 unless set; 0 turns reopening off; it is a whole number of hours', () => {
    expect(loadConfig({}).caseReopenWindowHours).toBe(72)
    expect(loadConfig({ CASE_REOPEN_WINDOW_HOURS: '0' }).caseReopenWindowHours).toBe(0)
    expect(() => loadConfig({ CASE_REOPEN_WINDOW_HOURS: '-1' })).toThrow(/CASE_REOPEN_WINDOW_HOURS/)
    expect(() => loadConfig({ CASE_REOPEN_WINDOW_HOURS: '1.5' })).toThrow(/CASE_REOPEN_WINDOW_HOURS/)
  })
})

describeEachDatabase('reopening cases and tags', (dialect) => {
  const server = useServer(dialect, { CASE_REOPEN_WINDOW_HOURS: '2' })
  let org: Awaited<ReturnType<typeof createOrganization>>
  let ada: Awaited<ReturnType<typeof signInAgent>>
  let bob: Awaited<ReturnType<typeof signInAgent>>
  let visitors = 0

  beforeAll(async () => {
    // No chatbot: cases are queued for agents at once.
    org = await createOrganization(server())
    ada = await signInAgent(server(), org.organizationID, 'reopen-ada@example.com')
    bob = await signInAgent(server(), org.organizationID, 'reopen-bob@example.com')
  })

  /** A visitor's case Ada took and closed. */
  async function closedCase(message = 'my order is late') {
    const visitor = await org.signIn(`reopen-visitor-${++visitors}`)
    const opened = await openCase(visitor, message)
    expect((await ada.call('/case/take', { id: opened.caseID })).status).toBe(200)
    expect((await ada.call('/case/close', { id: opened.caseID })).status).toBe(200)
    return { visitor, ...opened }
  }

  const errorOf = (reply: { status: number; json: { error: { code: string; message: string } } }) => [
    reply.status,
    reply.json.error.code,
    reply.json.error.message,
  ]

  test('a closed case reopens to the agent who reopens it; the visitor hears of it and can write again', async () => {
    const c = await closedCase()
    const socket = await connect(server().url, c.visitor.accessToken)
    // (Less than the visitor's access token lives.)
    server().clock.advance(10 * 60_000)
    const reopened = await bob.call('/case/reopen', { id: c.caseID })
    expect(reopened.status).toBe(200)
    expect(reopened.json.data.case).toMatchObject({
      caseID: c.caseID,
      status: 'assigned',
      agentAccountID: bob.id,
      closedTime: null,
      closedBy: '',
      isClosed: false,
      tags: [],
      reopenableUntil: null,
    })
    // The system message and the case update reach the visitor's socket (without tags).
    const said = await socket.waitUntil((f) => f.eventName === 'chat/sendMessage')
    expect(said.data).toMatchObject({ type: 9001, body: 'The case was reopened', roomID: c.roomID })
    expect(said.data.data).toMatchObject({ action: 'case/reopen', caseID: c.caseID, status: 'assigned' })
    const update = await socket.waitUntil((f) => f.eventName === 'case/update')
    expect(update.data).toMatchObject({ caseID: c.caseID, status: 'assigned', isClosed: false })
    expect(update.data).not.toHaveProperty('tags')
    await socket.close()

    const write = await c.visitor.call(`${V}/case/send_message`, {
      id: c.caseID,
      localID: 'after-reopen',
      messageType: 'text',
      text: { body: 'thanks for coming back' },
    })
    expect(write.status).toBe(200)
    expect(
      (
        await bob.call('/case/send_message', {
          id: c.caseID,
          localID: 'bob-1',
          messageType: 'text',
          text: { body: 'Hello again' },
        })
      ).status,
    ).toBe(200)
    const detail = (await bob.call('/case/get_by_id', { id: c.caseID })).json.data
    expect(detail.messages.map((m: { data: { action?: string } }) => m.data.action).filter(Boolean)).toEqual([
      'case/create',
      'case/assign',
      'case/close',
      'case/reopen',
    ])
    // Closed again later, it can be reopened again (the window runs from the latest closing).
    expect((await bob.call('/case/close', { id: c.caseID })).status).toBe(200)
    server().clock.advance(HOUR)
    expect((await ada.call('/case/reopen', { id: c.caseID })).json.data.case.agentAccountID).toBe(ada.id)
    expect((await ada.call('/case/close', { id: c.caseID })).status).toBe(200)
  })

  test('refused: an open case, past the window, another organization, the visitor having another open case', async () => {
    const open = await openCase(await org.signIn(`reopen-visitor-${++visitors}`))
    expect(errorOf(await ada.call('/case/reopen', { id: open.caseID }))).toEqual([
      409,
      '40901',
      'case is not closed',
    ])

    const late = await closedCase()
    // Agents are told until when a closed case can be reopened (the window: 2 hours here).
    const shown = (await ada.call('/case/get_by_id', { id: late.caseID })).json.data.case
    expect(shown.reopenableUntil).toBe(shown.closedTime + 2 * HOUR)
    expect(shown.closedTime).toBe(server().clock.now())
    server().clock.advance(2 * HOUR + 1)
    expect(errorOf(await ada.call('/case/reopen', { id: late.caseID }))).toEqual([
      409,
      '40901',
      'the case closed more than 2 hours ago and cannot be reopened',
    ])

    const other = await createOrganization(server(), 'Other')
    const outsider = await signInAgent(server(), other.organizationID, 'reopen-outsider@example.com')
    const theirs = await closedCase()
    expect(errorOf(await outsider.call('/case/reopen', { id: theirs.caseID }))).toEqual([
      404,
      '40401',
      'case not found',
    ])
    expect((await outsider.call('/case/set_tags', { id: theirs.caseID, tags: ['x'] })).status).toBe(404)

    // The visitor opened a new case meanwhile (maxOpenCases 1): the old one stays closed.
    const again = await openCase(theirs.visitor, 'me again')
    expect(errorOf(await ada.call('/case/reopen', { id: theirs.caseID }))).toEqual([
      409,
      '40901',
      'the visitor has another open case',
    ])
    await theirs.visitor.call(`${V}/case/close`, { id: again.caseID })
    expect((await ada.call('/case/reopen', { id: theirs.caseID })).status).toBe(200)
    await ada.call('/case/close', { id: theirs.caseID })
  })

  test('of agents reopening one case at once, exactly one wins', async () => {
    const c = await closedCase()
    const agents = [ada, bob, ada, bob, ada, bob]
    const replies = await Promise.all(agents.map((agent) => agent.call('/case/reopen', { id: c.caseID })))
    const won = replies.filter((r) => r.status === 200)
    expect(won).toHaveLength(1)
    for (const lost of replies.filter((r) => r.status !== 200))
      expect(errorOf(lost)).toEqual([409, '40901', 'case is not closed'])
    const detail = (await ada.call('/case/get_by_id', { id: c.caseID })).json.data
    expect(
      detail.messages.filter((m: { data: { action?: string } }) => m.data.action === 'case/reopen'),
    ).toHaveLength(1)
    expect(detail.case.agentAccountID).toBe(won[0]?.json.data.case.agentAccountID)
    await ada.call('/case/close', { id: c.caseID })
  })

  test('tags: replaced, normalised, shown to agents everywhere, announced to the agents only', async () => {
    const c = await closedCase('where is my refund')
    const set = await bob.call('/case/set_tags', {
      id: c.caseID,
      tags: ['  Refund ', 'VIP', 'vip', 'late  delivery'],
    })
    expect(set.status).toBe(200)
    expect(set.json.data.case).toMatchObject({
      caseID: c.caseID,
      tags: ['late delivery', 'refund', 'vip'],
      visitor: { userID: c.visitor.userID },
    })
    const replaced = await bob.call('/case/set_tags', { id: c.caseID, tags: ['refund', 'Ünïcode ✓'] })
    expect(replaced.json.data.case.tags).toEqual(['refund', 'ünïcode ✓'])
    expect((await ada.call('/case/get_by_id', { id: c.caseID })).json.data.case.tags).toEqual(
      replaced.json.data.case.tags,
    )
    const listed = (await ada.call('/case/get_list', { status: 'closed' })).json.data.cases
    expect(listed.find((x: { caseID: string }) => x.caseID === c.caseID).tags).toEqual([
      'refund',
      'ünïcode ✓',
    ])
    const profile = (await ada.call('/visitor/get', { userID: c.visitor.userID })).json.data
    expect(profile.cases[0].tags).toEqual(['refund', 'ünïcode ✓'])
    const found = (await ada.call('/case/search', { query: 'refund' })).json.data.cases
    expect(found.find((x: { caseID: string }) => x.caseID === c.caseID).tags).toEqual(['refund', 'ünïcode ✓'])

    // Visitors never see tags: not in their case objects, not in their case updates.
    const socket = await connect(server().url, c.visitor.accessToken)
    const agentSocket = await connect(server().url, ada.token)
    await bob.call('/case/set_tags', { id: c.caseID, tags: ['refund'] })
    const update = await agentSocket.waitUntil((f) => f.eventName === 'case/update')
    expect(update.data).toMatchObject({ caseID: c.caseID, tags: ['refund'] })
    const mine = (await c.visitor.call(`${V}/case/get_by_id`, { id: c.caseID })).json.data.case
    expect(mine).not.toHaveProperty('tags')
    expect((await c.visitor.call(`${V}/case/get_list`)).json.data.cases[0]).not.toHaveProperty('tags')
    expect(socket.frames.filter((f) => f.eventName === 'case/update')).toEqual([])
    await Promise.all([socket.close(), agentSocket.close()])

    // The reopened case keeps its tags.
    expect((await ada.call('/case/reopen', { id: c.caseID })).json.data.case.tags).toEqual(['refund'])
    expect((await ada.call('/case/set_tags', { id: c.caseID, tags: [] })).json.data.case.tags).toEqual([])
    await ada.call('/case/close', { id: c.caseID })
  })

  test('tags are checked: 1–32 characters, at most 10, text only', async () => {
    const c = await closedCase()
    const bad: [unknown, string][] = [
      [undefined, "Param 'tags' is required"],
      ['vip', "Param 'tags' must be a list of strings"],
      [[7], "Param 'tags' must be a list of strings"],
      [['   '], "Param 'tags' must not hold an empty tag"],
      [['x'.repeat(33)], "Param 'tags' must hold tags of at most 32 characters"],
      [['a\u0000b'], "Param 'tags' is invalid"],
      [['a\ud800'], "Param 'tags' is invalid"],
      [['\udfffb'], "Param 'tags' is invalid"],
      [['bell\u0007'], "Param 'tags' is invalid"],
      [Array.from({ length: 11 }, (_, i) => `t${i}`), "Param 'tags' must have at most 10 tags"],
    ]
    for (const [tags, message] of bad) {
      const reply = await ada.call('/case/set_tags', { id: c.caseID, tags })
      expect([reply.status, reply.json.error.code, reply.json.error.message]).toEqual([400, '40002', message])
    }
    // 32 characters (an emoji counts as one), ten of them: fine.
    const ten = Array.from({ length: 9 }, (_, i) => `t${i}`).concat(['😀'.repeat(32)])
    expect((await ada.call('/case/set_tags', { id: c.caseID, tags: ten })).json.data.case.tags).toHaveLength(
      10,
    )
    expect((await ada.call('/case/get_by_id', { id: c.caseID })).json.data.case.tags).toHaveLength(10)
    const filter = await ada.call('/case/get_list', { tags: ['a\u0000'] })
    expect([filter.status, filter.json.error.code]).toEqual([400, '40002'])
    await ada.call('/case/set_tags', { id: c.caseID, tags: [] })
  })

  test('filters by tags (cases having all of them) and the tags in use with their counts', async () => {
    const tagsOrg = await createOrganization(server(), 'Tagged')
    const agent = await signInAgent(server(), tagsOrg.organizationID, 'tagger@example.com')
    const cases: string[] = []
    for (const [i, tags] of [['billing', 'vip'], ['billing'], ['vip'], []].entries()) {
      const visitor = await tagsOrg.signIn(`tagged-visitor-${i}`)
      const opened = await openCase(visitor, `invoice question ${i}`)
      cases.push(opened.caseID)
      expect((await agent.call('/case/set_tags', { id: opened.caseID, tags })).status).toBe(200)
    }
    const ids = (reply: { json: { data: { cases: { caseID: string }[] } } }) =>
      reply.json.data.cases.map((x) => x.caseID).sort()
    expect(ids(await agent.call('/case/get_list', { tags: ['billing'] }))).toEqual(
      [cases[0], cases[1]].sort(),
    )
    expect(ids(await agent.call('/case/get_list', { tags: ['BILLING', 'vip'] }))).toEqual([cases[0]])
    expect(ids(await agent.call('/case/get_list', { tags: ['vip'], status: 'queued' }))).toEqual(
      [cases[0], cases[2]].sort(),
    )
    expect(ids(await agent.call('/case/get_list', { tags: ['nothing'] }))).toEqual([])
    expect(ids(await agent.call('/case/get_list', { tags: [] }))).toHaveLength(4)
    expect(ids(await agent.call('/case/search', { tags: ['vip'] }))).toEqual([cases[0], cases[2]].sort())
    expect(ids(await agent.call('/case/search', { query: 'invoice', tags: ['billing', 'vip'] }))).toEqual([
      cases[0],
    ])

    expect((await agent.call('/tag/get_list')).json.data.tags).toEqual([
      { tag: 'billing', cases: 2 },
      { tag: 'vip', cases: 2 },
    ])
    // Another organization's tags are its own.
    expect((await ada.call('/tag/get_list')).json.data.tags).not.toContainEqual({ tag: 'billing', cases: 2 })
  })
})

describeEachDatabase('reopening turned off', (dialect) => {
  const server = useServer(dialect, { CASE_REOPEN_WINDOW_HOURS: '0' })

  test('CASE_REOPEN_WINDOW_HOURS=0: no case reopens', async () => {
    const org = await createOrganization(server())
    const agent = await signInAgent(server(), org.organizationID, 'no-reopen@example.com')
    const opened = await openCase(await org.signIn('no-reopen-visitor'))
    await agent.call('/case/take', { id: opened.caseID })
    await agent.call('/case/close', { id: opened.caseID })
    const { cases } = (await agent.call('/case/get_list', { status: 'closed' })).json.data
    expect(cases[0].reopenableUntil).toBeNull()
    const reply = await agent.call('/case/reopen', { id: opened.caseID })
    expect([reply.status, reply.json.error.code, reply.json.error.message]).toEqual([
      409,
      '40901',
      'reopening cases is turned off',
    ])
  })
})
