import { beforeAll, describe, expect, test } from 'vitest'
import { type CaseStatus, canMove, TRANSITIONS } from '../../src/domain/cases/case.js'
import type { ChatbotDetails } from '../../src/domain/chatbots/chatbots.service.js'
import type { Message } from '../../src/domain/messages/message.js'
import { useServer } from '../support/app.js'
import { openCase, roomMessages, webhook } from '../support/cases.js'
import { createOrganization, recordEvents, roomHistory } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { runCLIJSON } from '../support/processes.js'
import { connect } from '../support/sockets.js'

const V = '/api/visitor/v1/client'

describe('the case state machine', () => {
  const statuses: CaseStatus[] = ['bot', 'queued', 'assigned', 'closed']
  test('allows exactly the transitions of the design table', () => {
    const allowed = statuses.flatMap((from) =>
      statuses.filter((to) => canMove(from, to)).map((to) => `${from}->${to}`),
    )
    expect(allowed.sort()).toEqual(
      ['bot->queued', 'bot->assigned', 'queued->assigned', 'assigned->assigned', 'assigned->queued']
        .concat(['queued->queued']) // to another topic's queue
        .concat(['bot->closed', 'queued->closed', 'assigned->closed'])
        .concat(['closed->assigned']) // reopened by an agent (case/reopen only)
        .sort(),
    )
    expect(TRANSITIONS.closed).toEqual(['assigned'])
  })
})

describeEachDatabase('cases and the visitor API', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let bot: ChatbotDetails

  beforeAll(async () => {
    org = await createOrganization(server())
    bot = await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Bot',
      url: 'http://127.0.0.1:9/b',
    })
  })

  const deliveriesOf = (caseID: string) =>
    server()
      .testDatabase.database.db.selectFrom('deliveries')
      .selectAll()
      .where('case_id', '=', caseID)
      .execute()

  test('topics: every organization has a default one; more are created with the CLI', async () => {
    const visitor = await org.signIn('topic-reader')
    const { env } = server().testDatabase
    const billing = await runCLIJSON(
      ['topic', 'create', '--org', org.organizationID, '--name', 'Billing'],
      env,
    )
    expect(billing).toMatchObject({ topicID: expect.any(Number), name: 'Billing', isDefault: false })
    const { topics } = (await visitor.call(`${V}/topic/get_list`)).json.data
    expect(topics.map((t: { name: string }) => t.name)).toEqual(['General', 'Billing'])
  })

  test('a new case goes to the active chatbot, with its room, system message and first message', async () => {
    const visitor = await org.signIn('first-visitor')
    const events = recordEvents(server())
    const reply = await visitor.call(`${V}/case/create`, { message: 'My parcel is late' })
    expect(reply.status).toBe(200)
    const created = reply.json.data.case
    expect(created).toMatchObject({
      caseID: expect.stringMatching(/^[0-9A-F]{10}$/),
      organizationID: org.organizationID,
      userID: visitor.userID,
      status: 'bot',
      chatbotID: bot.chatbotID,
      agentAccountID: '',
      firstMessage: 'My parcel is late',
      closedTime: null,
      closedBy: '',
      isClosed: false,
    })
    // The room is an ordinary room the visitor reads with the chat API.
    const history = (await visitor.call('/v1/chat/message/list_by_room/after', { roomID: created.roomID }))
      .json.data.messages
    expect(
      history.map((m: { type: number; body: string; user: { userID: string } }) => [m.type, m.user.userID]),
    ).toEqual([
      [9001, 'system'],
      [1001, visitor.userID],
    ])
    expect(history[0].data).toMatchObject({ action: 'case/create', caseID: created.caseID })
    // The first message waits in the outbox for the chatbot.
    const deliveries = await deliveriesOf(created.caseID)
    expect(deliveries).toMatchObject([
      { chatbot_id: bot.chatbotID, message_id: history[1].messageID, status: 'pending' },
    ])
    expect(events.named('case/update')[0]?.userIDs).toEqual([visitor.userID])
    events.stop()
  })

  test('one open case per visitor: a second is 40901, also when ten are sent at once', async () => {
    const visitor = await org.signIn('eager-visitor')
    // On PostgreSQL the ten run at once, each on its own connection: only the lock on the visitor
    // keeps them from each counting no open case and opening one. SQLite has one writer.
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) => visitor.call(`${V}/case/create`, { message: `try ${i}` })),
    )
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1)
    for (const reply of replies.filter((r) => r.status !== 200)) {
      expect(reply.json).toEqual({
        status: 409,
        error: { code: '40901', message: 'too many open cases', field: '' },
        data: {},
      })
    }
    const { cases } = (await visitor.call(`${V}/case/get_list`)).json.data
    expect(cases).toHaveLength(1)
    // Once it is closed, a new one may open.
    await visitor.call(`${V}/case/close`, { id: cases[0].caseID })
    expect((await visitor.call(`${V}/case/create`, { message: 'again' })).status).toBe(200)
  })

  test('get, send and close: only the visitor who owns the case', async () => {
    const [owner, stranger] = await Promise.all([org.signIn('owner'), org.signIn('stranger')])
    const opened = await openCase(owner)
    expect((await owner.call(`${V}/case/get_by_id`, { id: opened.caseID })).json.data.case.caseID).toBe(
      opened.caseID,
    )
    for (const path of ['case/get_by_id', 'case/close']) {
      const reply = await stranger.call(`${V}/${path}`, { id: opened.caseID })
      expect(reply.json.error).toMatchObject({ code: '40401', message: 'case not found' })
    }

    const sent = await owner.call(`${V}/case/send_message`, {
      id: opened.caseID,
      localID: 'pic-1',
      messageType: 'image',
      image: { url: 'https://cdn.example.com/receipt.png', caption: 'my receipt' },
    })
    expect(sent.json.data.message).toMatchObject({
      type: 1002,
      body: 'my receipt',
      data: { url: 'https://cdn.example.com/receipt.png' },
    })
    // A retry is answered with the same message and announced again, and adds nothing to the room.
    const historyIDs = async () => (await roomHistory(owner, opened.roomID)).map((m) => m.messageID)
    const before = await historyIDs()
    const events = recordEvents(server())
    const again = await owner.call(`${V}/case/send_message`, {
      id: opened.caseID,
      localID: 'pic-1',
      messageType: 'image',
      image: { url: 'https://cdn.example.com/receipt.png', caption: 'my receipt' },
    })
    events.stop()
    const messageID = sent.json.data.message.messageID
    expect(again.json.data.message.messageID).toBe(messageID)
    expect(
      events.named('chat/sendMessage').map((e) => [(e.event.data as Message).messageID, e.userIDs]),
    ).toEqual([[messageID, [owner.userID]]])
    expect(await historyIDs()).toEqual(before)
    const pictures = (await roomHistory(owner, opened.roomID)).filter((m) => m.localID === 'pic-1')
    expect(pictures.map((m) => m.messageID)).toEqual([messageID])
    expect(await deliveriesOf(opened.caseID)).toHaveLength(2) // the first message and the picture, once
    const bad = await owner.call(`${V}/case/send_message`, {
      id: opened.caseID,
      localID: 'x',
      messageType: 'text',
      text: {},
    })
    expect(bad.json.error).toMatchObject({ code: '40002', message: "Param 'body' is required" })

    const closed = (await owner.call(`${V}/case/close`, { id: opened.caseID })).json.data.case
    expect(closed).toMatchObject({
      status: 'closed',
      closedBy: 'user',
      isClosed: true,
      closedTime: expect.any(Number),
    })
    const late = await owner.call(`${V}/case/send_message`, {
      id: opened.caseID,
      localID: 'late',
      messageType: 'text',
      text: { body: 'hello?' },
    })
    expect(late.json.error).toMatchObject({ code: '40901', message: 'case is closed' })
    expect((await owner.call(`${V}/case/close`, { id: opened.caseID })).json.data.case).toEqual(closed)
  })

  test('the visitor socket hears the chatbot and the case changing', async () => {
    const visitor = await org.signIn('listener')
    const opened = await openCase(visitor)
    const socket = await connect(server().url, visitor.accessToken)
    const call = webhook(server(), bot)
    await call(
      {
        caseID: opened.caseID,
        eventType: 'messages',
        messages: [{ type: 'text', text: { body: 'Hi, I am the bot' } }],
      },
      {
        secretKey: bot.secretKey,
      },
    )
    const [said] = await socket.waitFor('chat/sendMessage')
    expect(said.data).toMatchObject({
      body: 'Hi, I am the bot',
      user: { userID: `chatbot:${bot.chatbotID}`, userRole: { code: 'chatbot' } },
    })

    await call(
      {
        caseID: opened.caseID,
        eventType: 'handover_case',
        handoverCase: { chatbotHandoverSummary: 'wants a refund' },
      },
      {
        secretKey: bot.secretKey,
      },
    )
    const [update] = await socket.waitFor('case/update')
    expect(update.data).toMatchObject({ caseID: opened.caseID, status: 'queued' })
    expect(JSON.stringify(socket.frames)).not.toContain('wants a refund') // the summary is for agents only
    const stored = await server()
      .testDatabase.database.db.selectFrom('cases')
      .select('handover_summary')
      .where('id', '=', opened.caseID)
      .executeTakeFirst()
    expect(stored?.handover_summary).toBe('wants a refund')
    await socket.close()
  })

  test('without an active chatbot a case is queued; deactivating a chatbot hands its cases over', async () => {
    const shop = await createOrganization(server(), 'Shop')
    const { env } = server().testDatabase
    const noBot = await openCase(await shop.signIn('early'))
    expect(noBot.status).toBe('queued')
    expect(await deliveriesOf(noBot.caseID)).toEqual([])

    const created = await runCLIJSON(
      [
        'chatbot',
        'create',
        '--org',
        shop.organizationID,
        '--name',
        'Shop bot',
        '--url',
        'https://bot.example.com/hook',
      ],
      env,
    )
    expect(created).toMatchObject({
      chatbotID: expect.stringMatching(/^\d+$/),
      active: true,
      secretKey: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      webhookURL: expect.stringMatching(
        new RegExp(`/api/visitor/v1/webhook/chatbot/custom/${shop.organizationID}/${created.chatbotID}$`),
      ),
    })
    const shown = await runCLIJSON(['chatbot', 'show', '--id', created.chatbotID], env)
    expect(shown.secretKey).toBe(created.secretKey)
    const stored = await server()
      .testDatabase.database.db.selectFrom('chatbots')
      .select('secret_key')
      .where('id', '=', created.chatbotID)
      .executeTakeFirstOrThrow()
    expect(stored.secret_key).not.toContain(created.secretKey.slice(6, 20)) // sealed at rest

    const withBot = await openCase(await shop.signIn('later'))
    expect(withBot.status).toBe('bot')
    const rotated = await runCLIJSON(['chatbot', 'rotate-secret', '--id', created.chatbotID], env)
    expect(rotated.secretKey).not.toBe(created.secretKey)

    expect(await runCLIJSON(['chatbot', 'deactivate', '--id', created.chatbotID], env)).toMatchObject({
      active: false,
    })
    const handedOver = await server()
      .testDatabase.database.db.selectFrom('cases')
      .select('status')
      .where('id', '=', withBot.caseID)
      .executeTakeFirstOrThrow()
    expect(handedOver.status).toBe('queued')
    const last = (
      await roomMessages(
        server(),
        (
          await server()
            .testDatabase.database.db.selectFrom('cases')
            .select('room_id')
            .where('id', '=', withBot.caseID)
            .executeTakeFirstOrThrow()
        ).room_id,
      )
    ).at(-1)
    expect(JSON.parse(last?.data ?? '{}')).toMatchObject({ action: 'case/handover', status: 'queued' })
  }, 90_000) // four CLI runs one after another: 30 s is too little on a busy machine

  test("a case's room takes messages only through the case; a localID is per room", async () => {
    const visitor = await org.signIn('room-writer')
    const opened = await openCase(visitor)
    const viaChat = await visitor.call('/v1/chat/message/send', {
      roomID: opened.roomID,
      localID: 'x',
      type: 1001,
      body: 'sneaky',
    })
    expect(viaChat.json.error).toEqual({
      code: '40002',
      message: "Param 'roomID' is a case room; use case/send_message",
      field: 'roomID',
    })

    // The same localID in a chat room and in the case are two messages.
    const friend = await org.signIn('room-writer-friend')
    const chat = await visitor.call('/v1/chat/message/send', {
      recipientUserID: friend.userID,
      localID: 'same',
      type: 1001,
      body: 'in chat',
    })
    const inCase = await visitor.call(`${V}/case/send_message`, {
      id: opened.caseID,
      localID: 'same',
      messageType: 'text',
      text: { body: 'in case' },
    })
    expect(inCase.json.data.message).toMatchObject({ roomID: opened.roomID, body: 'in case' })
    expect(inCase.json.data.message.messageID).not.toBe(chat.json.data.message.messageID)
  })
})
