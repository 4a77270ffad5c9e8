import { expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { openCase, webhook } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { connect } from '../support/sockets.js'

// Visitors see who answers (issue 14, item 4): a message's `user` names its sender also when that
// is an agent, a chatbot or Parley itself, wherever a message is shaped.

const NO_IMAGE = { thumbnail: '', fullsize: '' }

describeEachDatabase('who sent a message', (dialect) => {
  const server = useServer(dialect)

  test('agents, chatbots and the system carry their display names in answers, pages, room lists and frames', async () => {
    const org = await createOrganization(server(), 'Named senders')
    const bot = await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Helper Bot',
      url: 'http://127.0.0.1:9/bot',
    })
    const agent = await signInAgent(server(), org.organizationID, 'ada@example.com')
    await server().app.services.agents.update(operator, agent.id, {
      fullName: 'Ada Lovelace',
    })
    const visitor = await org.signIn('named-visitor')
    const socket = await connect(server().url, visitor.accessToken)
    try {
      const opened = await openCase(visitor, 'hello?')
      const call = webhook(server(), bot)
      const event = (body: object) => call({ caseID: opened.caseID, ...body }, { secretKey: bot.secretKey })
      await event({ eventType: 'messages', messages: [{ type: 'text', text: { body: 'Bot here' } }] })
      await event({ eventType: 'handover_case', handoverCase: {} })
      await agent.call('/case/take', { id: opened.caseID })
      const sent = await agent.call('/case/send_message', {
        id: opened.caseID,
        localID: 'a1',
        messageType: 'text',
        text: { body: 'Ada here' },
      })

      const named = {
        agent: { userID: `agent:${agent.id}`, fullname: 'Ada Lovelace', userRole: { code: 'agent' } },
        chatbot: {
          userID: `chatbot:${bot.chatbotID}`,
          fullname: 'Helper Bot',
          userRole: { code: 'chatbot' },
        },
        system: { userID: 'system', fullname: 'Parley', userRole: { code: 'system' } },
      }
      // The agent's own answer.
      expect(sent.json.data.message.user).toEqual(
        expect.objectContaining({ ...named.agent, imageURL: NO_IMAGE }),
      )

      // The visitor's frames over /connect.
      const frame = await socket.waitUntil(
        (f) => f.eventName === 'chat/sendMessage' && f.data.body === 'Ada here',
      )
      expect(frame.data.user).toMatchObject(named.agent)
      const botFrame = socket.frames.find(
        (f) => f.eventName === 'chat/sendMessage' && f.data.body === 'Bot here',
      )
      expect(botFrame.data.user).toMatchObject(named.chatbot)

      // A history page: every kind of sender named, the visitor as a user.
      const page = await visitor.call('/v1/chat/message/list_by_room/before', {
        roomID: opened.roomID,
        maxCreated: Number.MAX_SAFE_INTEGER,
        limit: 50,
      })
      const byBody = (body: string) =>
        page.json.data.messages.find((m: { body: string }) => m.body === body)?.user
      expect(byBody('Bot here')).toMatchObject(named.chatbot)
      expect(byBody('Ada here')).toMatchObject(named.agent)
      expect(byBody('hello?')).toMatchObject({ userID: visitor.userID, fullname: 'User named-visitor' })
      const system = page.json.data.messages.filter((m: { type: number }) => m.type === 9001)
      expect(system.length).toBeGreaterThan(0)
      for (const message of system) expect(message.user).toMatchObject(named.system)

      // The room list's latest message, and the agent's view of the case.
      const rooms = await visitor.call('/v1/chat/message/room_list_and_unread')
      const entry = rooms.json.data.rooms.find(
        (r: { room: { roomID: string } }) => r.room.roomID === opened.roomID,
      )
      expect(entry.lastMessage.user).toMatchObject(named.agent)
      const detail = await agent.call('/case/get_by_id', { id: opened.caseID })
      const botMessage = detail.json.data.messages.find((m: { body: string }) => m.body === 'Bot here')
      expect(botMessage.user).toMatchObject(named.chatbot)
    } finally {
      await socket.close()
    }
  })
})
