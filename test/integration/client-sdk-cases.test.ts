import { afterAll, beforeAll, expect, test } from 'vitest'
import { interactiveOf, type Message, type QuickReply, quickReply } from '../../packages/client/src/index.js'
import type { ChatbotDetails } from '../../src/domain/chatbots/chatbots.service.js'
import { useServer } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import { webhook } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { mintTicket, onceInOrder, sdkClient, until, untilOpen } from '../support/sdk.js'

// The client SDK's visitor side against a real Parley: support cases, their events, and a
// chatbot's interactive content (WhatsApp-style buttons and lists in customData) answered with a
// quick reply. The chatbot is a real HTTP server Parley delivers to.

const V = '/api/visitor/v1/client'

const BUTTONS = {
  type: 'interactive',
  interactive: {
    type: 'button',
    header: { type: 'text', text: 'Welcome!' },
    body: { text: 'How can we help?' },
    footer: { text: 'An automatic reply' },
    buttonAction: {
      buttons: [
        { type: 'reply', reply: { id: '/agent', title: 'Talk to agent' } },
        { type: 'reply', reply: { id: '/faq', title: 'FAQ' } },
      ],
    },
  },
}

const LIST = {
  type: 'interactive',
  interactive: {
    type: 'list',
    body: { text: 'Pick a topic' },
    listAction: {
      button: 'Topics',
      sections: [
        { title: 'Orders', rows: [{ id: 'late', title: 'Late parcel', description: 'Where is it?' }] },
        { rows: [{ id: 'other', title: 'Something else' }] },
      ],
    },
  },
}

describeEachDatabase('the client SDK and support cases', (dialect) => {
  const server = useServer(dialect, {}, { delivery: { autoStart: true, pollMs: 20 } })
  let queueOrg: Awaited<ReturnType<typeof createOrganization>>
  let botOrg: Awaited<ReturnType<typeof createOrganization>>
  let chatbot: ChatbotDetails
  let bot: Awaited<ReturnType<typeof startBot>>

  beforeAll(async () => {
    bot = await startBot()
    queueOrg = await createOrganization(server(), 'Queue only')
    botOrg = await createOrganization(server(), 'With a bot')
    chatbot = await server().app.services.chatbots.create(operator, botOrg.organizationID, {
      name: 'Helper',
      url: bot.url,
    })
  })
  afterAll(async () => {
    await bot?.close()
  })

  async function visitor(org: typeof queueOrg, xcUserID: string) {
    const recorded = sdkClient(server().url, () => mintTicket(server().url, org.serverKey, xcUserID))
    await recorded.client.start()
    await untilOpen(recorded)
    return recorded
  }

  test('cases: topics, create (its room watched), send, list, get, close; case events', async () => {
    const { client, ...seen } = await visitor(queueOrg, 'case-visitor')
    expect(await client.cases.topics()).toEqual([{ topicID: expect.any(Number), name: 'General' }])

    const opened = await client.cases.create({ message: 'My parcel is late' })
    expect(opened).toMatchObject({ status: 'queued', firstMessage: 'My parcel is late' })
    const sent = await client.cases.send(opened.caseID, { text: { body: 'Order 1234' } })
    expect(sent).toMatchObject({ roomID: opened.roomID, type: 1001, body: 'Order 1234' })
    expect((await client.cases.list()).map((c) => c.caseID)).toEqual([opened.caseID])
    expect(await client.cases.get(opened.caseID)).toMatchObject({ caseID: opened.caseID, status: 'queued' })

    const closed = await client.cases.close(opened.caseID)
    expect(closed).toMatchObject({ status: 'closed', isClosed: true, closedBy: 'user' })
    await until(
      () => seen.cases.some((c) => c.caseID === opened.caseID && c.isClosed),
      'the case/update event',
    )

    // The room's messages, each once and in order, as the history has them.
    const history = await client.messages.listAfter(opened.roomID, { limit: 100 })
    await until(() => seen.bodies(opened.roomID).length === history.messages.length, 'the room to be emitted')
    expect(seen.messages.map((m) => m.messageID)).toEqual(history.messages.map((m) => m.messageID))
    expect(onceInOrder(seen.messages)).toBe(true)
    expect(seen.messages.filter((m) => m.type === 1001).map((m) => m.body)).toEqual([
      'My parcel is late',
      'Order 1234',
    ])
    expect(seen.messages.map((m) => m.data.action).filter(Boolean)).toEqual(['case/create', 'case/close'])

    // A closed case refuses more messages: final, dropped from the outbox, reported.
    const failures: unknown[] = []
    client.on('sendFailed', (failure) => failures.push(failure))
    const refused = await client.cases
      .send(opened.caseID, { text: { body: 'hello?' } })
      .catch((e: unknown) => e)
    expect(refused).toMatchObject({ status: 409, code: '40901', message: 'case is closed' })
    expect(failures).toMatchObject([
      { entry: { caseID: opened.caseID, body: 'hello?' }, error: { code: '40901' } },
    ])
    expect(client.messages.pending()).toEqual([])
    client.stop()
  })

  test("a chatbot's buttons and list are read by interactiveOf; a quick reply answers as the visitor", async () => {
    const { client, network, ...seen } = await visitor(botOrg, 'quick-visitor')
    const opened = await client.cases.create({ message: 'Hello' })
    expect(opened.status).toBe('bot')
    const answered = await webhook(server(), chatbot)(
      {
        caseID: opened.caseID,
        eventType: 'messages',
        messages: [
          { type: 'text', text: { body: 'How can we help?' }, customData: JSON.stringify(BUTTONS) },
          { type: 'text', text: { body: 'Pick a topic' }, customData: JSON.stringify(LIST) },
          { type: 'text', text: { body: 'Plain text' }, customData: '{"type":"interactive"' },
        ],
      },
      { secretKey: chatbot.secretKey },
    )
    expect(answered.text).toBe('ok')
    const fromBot = () => seen.messages.filter((m) => m.user.userRole.code === 'chatbot')
    await until(() => fromBot().length === 3, "the chatbot's messages")
    const [buttons, list, plain] = fromBot() as [Message, Message, Message]
    expect(buttons.user.fullname).toBe('Helper')

    expect(interactiveOf(buttons)).toEqual(BUTTONS.interactive)
    expect(interactiveOf(list)).toEqual(LIST.interactive)
    expect(interactiveOf(plain)).toBeUndefined()

    const choice = quickReply(interactiveOf(list) as NonNullable<ReturnType<typeof interactiveOf>>, 'late')
    expect(choice).toEqual({
      type: 'list_reply',
      list_reply: { id: 'late', title: 'Late parcel', description: 'Where is it?' },
    })
    const reply = await client.cases.send(opened.caseID, { reply: choice })
    expect(reply).toMatchObject({ body: 'Late parcel', type: 1001, roomID: opened.roomID })
    // The visitor API's field for the choice carries it (see the TODO below for its delivery).
    expect(network.to(`${V}/case/send_message`).at(-1)?.body).toMatchObject({
      id: opened.caseID,
      messageType: 'text',
      text: { body: 'Late parcel' },
      interactive: choice,
    })
    client.stop()
  })

  test("the chatbot's delivery of a quick reply names the chosen button", async () => {
    const { client, ...seen } = await visitor(botOrg, 'delivered-visitor')
    const opened = await client.cases.create({ message: 'Hi' })
    await webhook(server(), chatbot)(
      {
        caseID: opened.caseID,
        eventType: 'messages',
        messages: [{ type: 'text', text: { body: 'How can we help?' }, customData: JSON.stringify(BUTTONS) }],
      },
      { secretKey: chatbot.secretKey },
    )
    await until(() => seen.messages.some((m) => interactiveOf(m)), "the chatbot's buttons")
    const offered = seen.messages.find((m) => interactiveOf(m)) as Message
    const choice = quickReply(
      interactiveOf(offered) as NonNullable<ReturnType<typeof interactiveOf>>,
      '/agent',
    )
    const sent = await client.cases.send(opened.caseID, { reply: choice as QuickReply })
    await until(() => bot.requests.some((r) => r.json.message?.id === sent.messageID), 'the delivery')
    const delivery = bot.requests.find((r) => r.json.message?.id === sent.messageID)
    expect(delivery?.json.message.interactive).toEqual({
      type: 'button_reply',
      button_reply: { id: '/agent', title: 'Talk to agent' },
    })
    client.stop()
  })

  test('rating a closed case (case/rate)', async () => {
    const { client } = await visitor(queueOrg, 'rating-visitor')
    const opened = await client.cases.create({ message: 'Thanks in advance' })
    await client.cases.close(opened.caseID)
    const rated = await client.cases.rate(opened.caseID, { rating: 5, note: 'Quick and kind' })
    expect(rated).toMatchObject({
      caseID: opened.caseID,
      status: 'closed',
      rating: { rating: 5, note: 'Quick and kind' },
    })
    client.stop()
  })
})
