import { afterAll, beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { type Reply, useServer } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import { openCase } from '../support/cases.js'
import { createOrganization, recordEvents, roomHistory } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { connect } from '../support/sockets.js'

// Internal notes on a case and @mentions of colleagues, over real HTTP and WebSockets (docs/reference/agent-api.md,
// "Internal notes and mentions"): agents only, never in the visitor's room, sockets or the
// chatbot's deliveries.

describeEachDatabase('internal notes and mentions', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let other: Awaited<ReturnType<typeof createOrganization>>
  let bot: Awaited<ReturnType<typeof startBot>>

  beforeAll(async () => {
    bot = await startBot()
    org = await createOrganization(server(), 'Acme')
    other = await createOrganization(server(), 'Other')
  })
  afterAll(async () => {
    await bot.close()
  })

  const expectError = async (reply: Promise<Reply>, status: number, code: string) => {
    const answer = await reply
    expect([answer.status, answer.json.error.code]).toEqual([status, code])
  }
  /** A visitor's waiting case taken by a new agent, with both their sockets open. */
  const takenCase = async (name: string) => {
    const visitor = await org.signIn(name)
    const opened = await openCase(visitor, 'my parcel is late')
    const agent = await signInAgent(server(), org.organizationID, `${name}@acme.example`)
    expect((await agent.call('/case/take', { id: opened.caseID })).status).toBe(200)
    const [visitorSocket, agentSocket] = await Promise.all([
      connect(server().url, visitor.accessToken),
      connect(server().url, agent.token),
    ])
    return { visitor, agent, visitorSocket, agentSocket, ...opened }
  }

  test('a note is stored, listed with the case and heard by its agents, never by the visitor', async () => {
    const c = await takenCase('noter')
    const events = recordEvents(server())
    const colleague = await signInAgent(server(), org.organizationID, 'colleague@acme.example')
    const text = 'Visitor is a VIP, refund without asking'
    const added = await colleague.call('/case/add_note', { id: c.caseID, localID: 'n-1', text })
    expect(added.json).toMatchObject({
      status: 200,
      data: { note: { caseID: c.caseID, text, mentions: [] } },
    })
    const { note } = added.json.data
    expect(note).toMatchObject({ agentAccountID: colleague.id, agentName: 'colleague@acme.example' })
    // The case's agent hears of it live.
    const heard = await c.agentSocket.waitFor('case/note')
    expect(heard[0].data).toEqual({ caseID: c.caseID, note })
    // A retry stores nothing new and announces nothing again.
    const again = await colleague.call('/case/add_note', { id: c.caseID, localID: 'n-1', text })
    expect(again.json.data.note).toEqual(note)
    const second = await c.agent.call('/case/add_note', { id: c.caseID, localID: 'n-1', text: 'checked' })
    const detail = await c.agent.call('/case/get_by_id', { id: c.caseID })
    expect(detail.json.data.notes.map((n: { text: string }) => n.text)).toEqual([text, 'checked'])
    expect(detail.json.data.notes[1]).toEqual(second.json.data.note)

    // The visitor: not in the room's history, not in the case, nothing on the socket.
    const reply = await c.agent.call('/case/send_message', {
      id: c.caseID,
      localID: 'r-1',
      messageType: 'text',
      text: { body: 'marker' },
    })
    expect(reply.status).toBe(200)
    const frames = await c.visitorSocket.framesThrough((f) => f.data?.body === 'marker')
    expect(JSON.stringify(frames)).not.toContain('VIP')
    expect(JSON.stringify(await roomHistory(c.visitor, c.roomID))).not.toContain('VIP')
    const visitorCase = await c.visitor.call('/api/visitor/v1/client/case/get_by_id', { id: c.caseID })
    expect(JSON.stringify(visitorCase.json)).not.toContain('VIP')
    // Every event that carried the note went to agents alone.
    const carrying = events.events.filter((e) => JSON.stringify(e.event).includes('VIP'))
    expect(carrying.length).toBeGreaterThan(0)
    for (const e of carrying) {
      expect(e.sessionIDs).toEqual([])
      for (const userID of e.userIDs) expect(userID).toMatch(/^agent:/)
    }
    events.stop()

    // A closed case takes notes too; a localID reused on another case is a conflict.
    expect((await c.agent.call('/case/close', { id: c.caseID })).status).toBe(200)
    expect(
      (await c.agent.call('/case/add_note', { id: c.caseID, localID: 'n-2', text: 'after' })).status,
    ).toBe(200)
    const elsewhere = await openCase(await org.signIn('noter-2'))
    await expectError(
      colleague.call('/case/add_note', { id: elsewhere.caseID, localID: 'n-1', text }),
      409,
      '40901',
    )
    await Promise.all([c.visitorSocket.close(), c.agentSocket.close()])
  })

  test('mentions reach the mentioned agent alone, and fill their unread list', async () => {
    const c = await takenCase('mentioner')
    const ada = await signInAgent(server(), org.organizationID, 'ada.admin@acme.example', { role: 'admin' })
    const bob = await signInAgent(server(), org.organizationID, 'bob@acme.example')
    const stranger = await signInAgent(server(), other.organizationID, 'eve@other.example')
    const [adaSocket, bobSocket, strangerSocket] = await Promise.all([
      connect(server().url, ada.token),
      connect(server().url, bob.token),
      connect(server().url, stranger.token),
    ])
    // The picker's form, and the plain e-mail local part (a full stop after it is the sentence's);
    // another organization's agent is plain text, and so is an address.
    const text = `@[Ada Admin](${ada.id}) please look, cc @BOB. Not @[Eve](${stranger.id}) nor @eve, mail bob@acme.example`
    const added = await c.agent.call('/case/add_note', { id: c.caseID, localID: 'm-1', text })
    expect(added.json.data.note.mentions).toEqual([ada.id, bob.id])
    const { note } = added.json.data
    const [told] = await adaSocket.waitFor('agent/mention')
    expect(told.data).toEqual({
      caseID: c.caseID,
      note,
      by: { agentAccountID: c.agent.id, fullName: 'mentioner@acme.example' },
    })
    await bobSocket.waitFor('agent/mention')
    // Only the mentioned: the writer's socket hears the note, not a mention; the stranger nothing.
    await c.agentSocket.waitFor('case/note')
    const marker = await c.agent.call('/case/add_note', {
      id: c.caseID,
      localID: 'm-2',
      text: `@[Bob](${bob.id})`,
    })
    expect(marker.status).toBe(200)
    await bobSocket.waitFor('agent/mention', 2)
    expect(adaSocket.frames.filter((f) => f.eventName === 'agent/mention')).toHaveLength(1)
    expect(c.agentSocket.frames.filter((f) => f.eventName === 'agent/mention')).toEqual([])
    expect(strangerSocket.frames.filter((f) => f.eventName !== 'case/update')).toEqual([])

    // The unread list: newest first; marked read by case.
    const list = await bob.call('/mention/get_list', {})
    expect(list.json.data.unread).toBe(2)
    expect(list.json.data.mentions.map((m: { note: { noteID: string } }) => m.note.noteID)).toEqual([
      marker.json.data.note.noteID,
      note.noteID,
    ])
    expect(list.json.data.mentions[0]).toMatchObject({ caseID: c.caseID, read: false })
    expect((await bob.call('/mention/mark_read', { caseID: 'NOCASE' })).json.data).toEqual({ unread: 2 })
    expect((await bob.call('/mention/mark_read', { caseID: c.caseID })).json.data).toEqual({ unread: 0 })
    const read = await bob.call('/mention/get_list', { unreadOnly: true })
    expect(read.json.data).toEqual({ mentions: [], unread: 0 })
    expect((await bob.call('/mention/get_list', { limit: 1 })).json.data.mentions[0].read).toBe(true)
    expect((await ada.call('/mention/mark_read', {})).json.data).toEqual({ unread: 0 })
    expect((await stranger.call('/mention/get_list', {})).json.data).toEqual({ mentions: [], unread: 0 })

    // Another organization's agent can neither read nor write the case's notes.
    await expectError(stranger.call('/case/get_by_id', { id: c.caseID }), 404, '40401')
    await expectError(
      stranger.call('/case/add_note', { id: c.caseID, localID: 'x', text: 'hi' }),
      404,
      '40401',
    )
    await Promise.all(
      [c.visitorSocket, c.agentSocket, adaSocket, bobSocket, strangerSocket].map((s) => s.close()),
    )
  })

  test('hostile text is refused with 40002; a note is never delivered to the chatbot', async () => {
    const agent = await signInAgent(server(), org.organizationID, 'careful@acme.example')
    const visitor = await org.signIn('bot-visitor')
    const chatbot = await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Helper',
      url: bot.url,
    })
    expect(chatbot.active).toBe(true)
    const opened = await openCase(visitor, 'hello bot')
    expect(opened.status).toBe('bot')
    for (const text of ['a\u0000b', 'lone \ud800 surrogate', 'x'.repeat(5001), '   ', 42]) {
      await expectError(agent.call('/case/add_note', { id: opened.caseID, localID: 'h', text }), 400, '40002')
    }
    await expectError(agent.call('/case/add_note', { id: opened.caseID, text: 'no localID' }), 400, '40002')
    // 5000 characters (an emoji counts as one) are fine.
    const long = await agent.call('/case/add_note', {
      id: opened.caseID,
      localID: 'h',
      text: '😀'.repeat(5000),
    })
    expect(long.status).toBe(200)
    await expectError(
      agent.call('/case/add_note', { id: 'NOSUCHCASE', localID: 'h2', text: 'x' }),
      404,
      '40401',
    )

    const secret = await agent.call('/case/add_note', {
      id: opened.caseID,
      localID: 'b-1',
      text: 'bot must not see',
    })
    expect(secret.status).toBe(200)
    const said = await visitor.call('/api/visitor/v1/client/case/send_message', {
      id: opened.caseID,
      localID: 'v-1',
      messageType: 'text',
      text: { body: 'still there?' },
    })
    expect(said.status).toBe(200)
    await server().app.delivery.drain()
    const delivered = bot.requests.filter((request) => request.json.caseID === opened.caseID)
    expect(delivered.map((request) => request.json.message.text?.body)).toEqual(['hello bot', 'still there?'])
    expect(bot.requests.some((request) => request.body.includes('bot must not see'))).toBe(false)
    await server().app.services.chatbots.deactivate(operator, chatbot.chatbotID)
  })
})
