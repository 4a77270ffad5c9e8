import { beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { type Reply, useServer } from '../support/app.js'
import { openCase } from '../support/cases.js'
import { createOrganization, roomHistory, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect } from '../support/sockets.js'

// Typing notices and read marks both ways between a case's visitor and its agent, over real HTTP
// and WebSockets (docs/reference/agent-api.md, docs/reference/real-time.md).

describeEachDatabase('typing and read marks in cases', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let other: Awaited<ReturnType<typeof createOrganization>>

  beforeAll(async () => {
    org = await createOrganization(server(), 'Acme')
    other = await createOrganization(server(), 'Other')
  })

  const visitorSays = async (visitor: TestClient, caseID: string, localID: string, body: string) => {
    const reply = await visitor.call('/api/visitor/v1/client/case/send_message', {
      id: caseID,
      localID,
      messageType: 'text',
      text: { body },
    })
    expect(reply.status).toBe(200)
    return reply.json.data.message as { messageID: string; isRead: boolean }
  }
  /** A visitor's case taken by a new agent, with both their sockets open. */
  const takenCase = async (name: string) => {
    const visitor = await org.signIn(name)
    const opened = await openCase(visitor, 'hello, anyone?')
    const agent = await signInAgent(server(), org.organizationID, `${name}-agent@example.com`)
    expect((await agent.call('/case/take', { id: opened.caseID })).status).toBe(200)
    const [visitorSocket, agentSocket] = await Promise.all([
      connect(server().url, visitor.accessToken),
      connect(server().url, agent.token),
    ])
    return { visitor, agent, visitorSocket, agentSocket, ...opened }
  }
  const expectError = async (reply: Promise<Reply>, status: number, code: string) => {
    const answer = await reply
    expect([answer.status, answer.json.error.code]).toEqual([status, code])
  }

  test("the agent's typing reaches the visitor as the agent, coalesced; the visitor's reaches the agent", async () => {
    const c = await takenCase('typist')
    expect((await c.agent.call('/case/typing', { id: c.caseID, typing: true })).json).toMatchObject({
      status: 200,
      data: {},
    })
    const started = await c.visitorSocket.waitFor('chat/startTyping')
    expect(started[0].data).toEqual({
      roomID: c.roomID,
      user: expect.objectContaining({
        userID: `agent:${c.agent.id}`,
        fullname: 'typist-agent@example.com',
        userRole: { code: 'agent' },
      }),
    })
    // The same notice again at once is not relayed; a change is.
    expect((await c.agent.call('/case/typing', { id: c.caseID, typing: true })).status).toBe(200)
    expect((await c.agent.call('/case/typing', { id: c.caseID, typing: false })).status).toBe(200)
    const frames = await c.visitorSocket.framesThrough((f) => f.eventName === 'chat/stopTyping')
    expect(frames.filter((f) => f.eventName === 'chat/startTyping')).toHaveLength(1)
    expect(frames.at(-1).data.user.userID).toBe(`agent:${c.agent.id}`)

    // The visitor types in the case's room: the case's agent hears it (not a participant of it).
    c.visitorSocket.send({ eventName: 'chat/startTyping', data: { roomID: c.roomID } })
    const heard = await c.agentSocket.waitUntil((f) => f.eventName === 'chat/startTyping')
    expect(heard.data).toMatchObject({
      roomID: c.roomID,
      user: { userID: c.visitor.userID, fullname: 'User typist' },
    })
    c.visitorSocket.send({ eventName: 'chat/stopTyping', data: { roomID: c.roomID } })
    await c.agentSocket.waitUntil((f) => f.eventName === 'chat/stopTyping')

    // Another agent of the organization does not follow the case: neither hears nor may type.
    const bystander = await signInAgent(server(), org.organizationID, 'bystander@example.com')
    const bystanderSocket = await connect(server().url, bystander.token)
    await expectError(bystander.call('/case/typing', { id: c.caseID, typing: true }), 403, '40301')
    c.visitorSocket.send({ eventName: 'chat/startTyping', data: { roomID: c.roomID } })
    await c.agentSocket.waitFor('chat/startTyping', 2)
    expect(bystanderSocket.frames.filter((f) => String(f.eventName).endsWith('Typing'))).toEqual([])
    // Another organization's case does not exist; the parameters are checked.
    const stranger = await signInAgent(server(), other.organizationID, 'stranger@example.com')
    await expectError(stranger.call('/case/typing', { id: c.caseID, typing: true }), 404, '40401')
    await expectError(c.agent.call('/case/typing', { id: c.caseID }), 400, '40002')
    await expectError(c.agent.call('/case/typing', { id: c.caseID, typing: 'yes' }), 400, '40002')
    // A waiting case is nobody's; a closed one takes no typing.
    const waiting = await openCase(await org.signIn('waiting-typist'))
    await expectError(c.agent.call('/case/typing', { id: waiting.caseID, typing: true }), 403, '40301')
    expect((await c.agent.call('/case/close', { id: c.caseID })).status).toBe(200)
    await expectError(c.agent.call('/case/typing', { id: c.caseID, typing: true }), 409, '40901')
    await Promise.all([c.visitorSocket.close(), c.agentSocket.close(), bystanderSocket.close()])
  })

  test("the agent's read mark makes the visitor's messages read, with updates; the visitor's makes the agent's", async () => {
    const c = await takenCase('reader')
    const first = await visitorSays(c.visitor, c.caseID, 'v-1', 'my order is late')
    const second = await visitorSays(c.visitor, c.caseID, 'v-2', 'order 42')
    expect([first.isRead, second.isRead]).toEqual([false, false])
    const before = await roomHistory(c.visitor, c.roomID)
    expect(before.filter((m) => m.user.userID === c.visitor.userID).map((m) => m.isRead)).toEqual([
      false,
      false,
      false,
    ])

    // Up to a message: that one and those before it.
    expect(
      (await c.agent.call('/case/mark_read', { id: c.caseID, messageID: first.messageID })).json,
    ).toMatchObject({
      status: 200,
      data: {},
    })
    const updated = await c.visitorSocket.waitFor('chat/updateMessage', 2)
    expect(updated.map((f) => [f.data.body, f.data.isRead, f.data.isDelivered])).toEqual([
      ['hello, anyone?', true, true],
      ['my order is late', true, true],
    ])
    // The case's agents hear it too.
    await c.agentSocket.waitFor('chat/updateMessage', 2)
    // All of it: the rest.
    expect((await c.agent.call('/case/mark_read', { id: c.caseID })).status).toBe(200)
    const last = await c.visitorSocket.waitFor('chat/updateMessage', 3)
    expect(last[2].data).toMatchObject({ messageID: second.messageID, isRead: true })
    const after = await roomHistory(c.visitor, c.roomID)
    expect(after.filter((m) => m.user.userID === c.visitor.userID).every((m) => m.isRead)).toBe(true)
    const detail = await c.agent.call('/case/get_by_id', { id: c.caseID })
    const agentView: { user: { userID: string }; isRead: boolean }[] = detail.json.data.messages
    expect(agentView.filter((m) => m.user.userID === c.visitor.userID).every((m) => m.isRead)).toBe(true)
    // Marking again changes nothing and announces nothing.
    expect((await c.agent.call('/case/mark_read', { id: c.caseID })).status).toBe(200)

    // The agent's reply is read once the visitor reads it; the agent hears the update.
    const reply = await c.agent.call('/case/send_message', {
      id: c.caseID,
      localID: 'a-1',
      messageType: 'text',
      text: { body: 'Looking into it' },
    })
    const replyMessage = reply.json.data.message
    expect(replyMessage.isRead).toBe(false)
    await c.visitor.call('/v1/chat/message/feedback/read', { messageIDs: [replyMessage.messageID] })
    const seen = await c.agentSocket.waitUntil(
      (f) => f.eventName === 'chat/updateMessage' && f.data.messageID === replyMessage.messageID,
    )
    expect(seen.data.isRead).toBe(true)
    // The visitor's read mark does not make their own later messages read.
    const third = await visitorSays(c.visitor, c.caseID, 'v-3', 'thanks')
    expect(third.isRead).toBe(false)

    // Refusals: not your case, another organization's, a message of another room.
    const bystander = await signInAgent(server(), org.organizationID, 'reader-bystander@example.com', {
      role: 'admin',
    })
    await expectError(bystander.call('/case/mark_read', { id: c.caseID }), 403, '40301')
    const stranger = await signInAgent(server(), other.organizationID, 'reader-stranger@example.com')
    await expectError(stranger.call('/case/mark_read', { id: c.caseID }), 404, '40401')
    const elsewhere = await takenCase('reader-elsewhere')
    const foreign = await visitorSays(elsewhere.visitor, elsewhere.caseID, 'e-1', 'other case')
    await expectError(
      c.agent.call('/case/mark_read', { id: c.caseID, messageID: foreign.messageID }),
      404,
      '40401',
    )
    const [unread] = (await roomHistory(c.visitor, c.roomID)).filter((m) => m.localID === 'v-3')
    expect(unread?.isRead).toBe(false)
    await Promise.all([c, elsewhere].flatMap((x) => [x.visitorSocket.close(), x.agentSocket.close()]))
  })
})
