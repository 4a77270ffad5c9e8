import { beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { openCase } from '../support/cases.js'
import { createOrganization, roomHistory, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect } from '../support/sockets.js'

type Agent = Awaited<ReturnType<typeof signInAgent>>

// Agents' message actions in their cases (docs/reference/agent-api.md#message-actions): the client
// API's edits, reactions and pins, with its rules, for the agent the case is assigned to; the
// visitor (and the agent's other consoles) see each change live.
describeEachDatabase('agent message actions', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let visitor: TestClient
  let agent: Agent
  let other: Agent

  beforeAll(async () => {
    org = await createOrganization(server(), 'Actions')
    agent = await signInAgent(server(), org.organizationID, 'holder@example.com')
    other = await signInAgent(server(), org.organizationID, 'other@example.com')
  })

  /** A new visitor's case, taken by `agent`, with a reply of theirs (each visitor has one open case). */
  const takenCase = async (text: string) => {
    visitor = await org.signIn(text.replaceAll(' ', '-'))
    const opened = await openCase(visitor, text)
    expect((await agent.call('/case/take', { id: opened.caseID })).status).toBe(200)
    const reply = await agent.call('/case/send_message', {
      id: opened.caseID,
      localID: `${text}-reply`,
      messageType: 'text',
      text: { body: 'Let me lok' },
    })
    const visitorMessage = (await roomHistory(visitor, opened.roomID)).find((m) => m.body === text)
    return {
      ...opened,
      replyID: reply.json.data.message.messageID as string,
      visitorMessageID: visitorMessage.messageID,
    }
  }

  test('the case’s agent edits a reply, reacts and pins: the visitor sees each live', async () => {
    const c = await takenCase('my parcel is late')
    const [visitorSocket, agentSocket] = await Promise.all([
      connect(server().url, visitor.accessToken),
      connect(server().url, agent.token),
    ])
    server().clock.advance(1000)
    const edited = await agent.call('/case/message/edit', {
      id: c.caseID,
      messageID: c.replyID,
      body: 'Let me look',
    })
    expect(edited.json.data.message).toMatchObject({ body: 'Let me look', edited: server().clock.now() })
    const [frame] = await visitorSocket.waitFor('chat/updateMessage')
    expect(frame.data).toMatchObject({ messageID: c.replyID, body: 'Let me look' })
    await agentSocket.waitUntil((f) => f.eventName === 'chat/updateMessage' && f.data.body === 'Let me look')

    const reacted = await agent.call('/case/message/reaction/toggle', {
      id: c.caseID,
      messageID: c.visitorMessageID,
      emoji: '👍',
    })
    expect(reacted.json.data.message.reactions).toEqual([
      { emoji: '👍', count: 1, userIDs: [`agent:${agent.id}`] },
    ])
    await visitorSocket.waitUntil(
      (f) => f.eventName === 'chat/updateMessage' && f.data.reactions?.length === 1,
    )

    const pinned = await agent.call('/case/message/pin', { id: c.caseID, messageIDs: [c.visitorMessageID] })
    expect(pinned.json.data.messages).toMatchObject([{ messageID: c.visitorMessageID, isPinned: true }])
    await visitorSocket.waitUntil((f) => f.eventName === 'chat/updateMessage' && f.data.isPinned === true)
    // The visitor's own pinned list and any agent's view of the case agree.
    const visitorPins = await visitor.call('/v1/chat/message/get_pinned_ids', { roomID: c.roomID })
    expect(visitorPins.json.data.pinnedMessageIDs).toEqual([c.visitorMessageID])
    const list = await other.call('/case/message/get_pinned_list', { id: c.caseID })
    expect(list.json.data).toMatchObject({ messages: [{ messageID: c.visitorMessageID }], hasMore: false })

    // Toggled again: the reaction goes; unpinned: the list is empty.
    await agent.call('/case/message/reaction/toggle', {
      id: c.caseID,
      messageID: c.visitorMessageID,
      emoji: '👍',
    })
    await agent.call('/case/message/unpin', { id: c.caseID, messageIDs: [c.visitorMessageID] })
    const after = (await roomHistory(visitor, c.roomID)).find((m) => m.messageID === c.visitorMessageID)
    expect(after).toMatchObject({ reactions: [], isPinned: false })
    await Promise.all([visitorSocket.close(), agentSocket.close()])
  })

  test('bad actions get the documented errors', async () => {
    const c = await takenCase('where is it')
    const expectError = async (caller: Agent, path: string, body: unknown, status: number, code: string) => {
      const reply = await caller.call(path, body)
      expect([path, reply.status, reply.json.error?.code]).toEqual([path, status, code])
    }
    const id = c.caseID
    const cases: [Agent, string, unknown, number, string][] = [
      // The visitor's message is theirs to edit; the case is another agent's to act in.
      [agent, '/case/message/edit', { id, messageID: c.visitorMessageID, body: 'x' }, 403, '40301'],
      [other, '/case/message/edit', { id, messageID: c.replyID, body: 'x' }, 403, '40301'],
      [other, '/case/message/pin', { id, messageIDs: [c.replyID] }, 403, '40301'],
      [other, '/case/message/reaction/toggle', { id, messageID: c.replyID, emoji: '👍' }, 403, '40301'],
      // Bad input.
      [
        agent,
        '/case/message/reaction/toggle',
        { id, messageID: c.replyID, emoji: 'x'.repeat(10_000) },
        400,
        '40002',
      ],
      [agent, '/case/message/edit', { id, messageID: c.replyID, body: '' }, 400, '40002'],
      [agent, '/case/message/pin', { id, messageIDs: [] }, 400, '40002'],
    ]
    for (const [caller, path, body, status, code] of cases)
      await expectError(caller, path, body, status, code)
    // A message of another room is not in the case.
    const elsewhere = await takenCase('another case')
    await expectError(
      agent,
      '/case/message/pin',
      { id: c.caseID, messageIDs: [elsewhere.replyID] },
      404,
      '40401',
    )
    await expectError(agent, '/case/message/get_pinned_list', { id: '999' }, 404, '40401')
    // The organization's edit window is the agents' too.
    server().clock.advance(901_000)
    await expectError(
      agent,
      '/case/message/edit',
      { id: c.caseID, messageID: c.replyID, body: 'late' },
      409,
      '40901',
    )
    expect((await agent.call('/case/close', { id: c.caseID })).status).toBe(200)
    await expectError(agent, '/case/message/pin', { id: c.caseID, messageIDs: [c.replyID] }, 409, '40901')
  })
})
