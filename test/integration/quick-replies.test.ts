import { afterAll, beforeAll, expect, test } from 'vitest'
import type { ChatbotDetails } from '../../src/domain/chatbots/chatbots.service.js'
import { useServer } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import { openCase, roomMessages, webhook } from '../support/cases.js'
import { createOrganization, roomHistory } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'

// Quick replies: a chatbot sends WhatsApp-style interactive content in a message's customData;
// the visitor's choice comes back as their text message, and the chatbot's delivery carries it in
// the product family's inbound shape.

const V = '/api/visitor/v1/client'

const buttons = {
  type: 'interactive',
  interactive: {
    type: 'button',
    body: { text: 'How can I help?' },
    buttonAction: {
      buttons: [
        { type: 'reply', reply: { id: '/agent', title: 'Talk to agent' } },
        { type: 'reply', reply: { id: '/hi', title: 'Say hi' } },
      ],
    },
  },
}
const list = {
  type: 'interactive',
  interactive: {
    type: 'list',
    body: { text: 'Pick a topic' },
    listAction: {
      button: 'Topics',
      sections: [
        {
          title: 'Orders',
          rows: [{ id: '/orders late', title: 'Late parcel', description: 'Where is it?' }],
        },
        { title: 'Other', rows: [{ id: '/agent 0', title: 'More options' }] },
      ],
    },
  },
}

describeEachDatabase('quick replies', (dialect) => {
  const server = useServer(dialect)
  let bot: Awaited<ReturnType<typeof startBot>>
  let org: Awaited<ReturnType<typeof createOrganization>>
  let chatbot: ChatbotDetails
  let visitors = 0

  beforeAll(async () => {
    bot = await startBot()
    org = await createOrganization(server())
    chatbot = await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Menu bot',
      url: bot.url,
    })
  })
  afterAll(async () => {
    await bot.close()
  })

  /** A visitor with a case the chatbot has, to which it sent `customData` (JSON text, as the family does). */
  async function offered(customData: unknown = JSON.stringify(buttons)) {
    const visitor = await org.signIn(`quick-visitor-${++visitors}`)
    const opened = await openCase(visitor, 'hello')
    const reply = await webhook(server(), chatbot)(
      {
        caseID: opened.caseID,
        eventType: 'messages',
        messages: [{ type: 'text', text: { body: 'How can I help?' }, customData }],
      },
      { secretKey: chatbot.secretKey },
    )
    expect(reply.text).toBe('ok')
    return { visitor, ...opened }
  }
  const choose = (
    visitor: Awaited<ReturnType<typeof offered>>['visitor'],
    caseID: string,
    extra: Record<string, unknown>,
    localID = `choice-${Math.random()}`,
  ) => visitor.call(`${V}/case/send_message`, { id: caseID, localID, messageType: 'text', ...extra })
  /** What the stand-in bot received for the message `messageID`, after the worker's round. */
  async function deliveredFor(messageID: string) {
    await server().app.delivery.drain()
    return bot.requests.find((request) => request.json.message.id === messageID)?.json
  }

  test("the chatbot's buttons reach the visitor as sent; a button's choice reaches the chatbot", async () => {
    const { visitor, caseID, roomID } = await offered()
    const history = await roomHistory(visitor, roomID)
    const menu = history.at(-1)
    expect(menu).toMatchObject({ body: 'How can I help?', data: { customData: JSON.stringify(buttons) } })
    expect(menu.user.userRole.code).toBe('chatbot')

    const interactive = { type: 'button_reply', button_reply: { id: '/agent', title: 'Talk to agent' } }
    const reply = await choose(visitor, caseID, { text: { body: 'Talk to agent' }, interactive })
    expect(reply.status).toBe(200)
    const { message } = reply.json.data
    expect(message).toMatchObject({ type: 1001, body: 'Talk to agent', data: { interactive } })

    const delivered = await deliveredFor(message.messageID)
    expect(delivered?.message).toEqual({
      id: message.messageID,
      type: 'text',
      text: { body: 'Talk to agent' },
      interactive,
      whatsappba: { type: 'interactive', interactive },
    })
    // Stored as the visitor's text message with the choice in its data.
    const stored = (await roomMessages(server(), roomID)).at(-1)
    expect(stored).toMatchObject({ sender_id: visitor.userID, body: 'Talk to agent' })
    expect(JSON.parse(stored?.data as string)).toEqual({ interactive })
  })

  test("a list's row, with the body left out: the title is the text; customData may be an object", async () => {
    const { visitor, caseID } = await offered(list)
    const interactive = {
      type: 'list_reply',
      list_reply: { id: '/orders late', title: 'Late parcel', description: 'Where is it?' },
    }
    const reply = await choose(visitor, caseID, { interactive })
    expect(reply.status).toBe(200)
    expect(reply.json.data.message).toMatchObject({ body: 'Late parcel', data: { interactive } })
    const delivered = await deliveredFor(reply.json.data.message.messageID)
    expect(delivered?.message).toMatchObject({ text: { body: 'Late parcel' }, interactive })

    // A row without a description, chosen without one: delivered with description ''.
    const more = await choose(visitor, caseID, {
      interactive: { type: 'list_reply', list_reply: { id: '/agent 0', title: 'More options' } },
    })
    expect(more.status).toBe(200)
    expect((await deliveredFor(more.json.data.message.messageID))?.message.interactive).toEqual({
      type: 'list_reply',
      list_reply: { id: '/agent 0', title: 'More options', description: '' },
    })
  })

  test("a choice must be one of the chatbot's latest buttons or rows; a retry of a stored one passes", async () => {
    const { visitor, caseID } = await offered()
    const notOffered = {
      status: 400,
      error: {
        code: '40002',
        message: "Param 'interactive' does not match the chatbot's last buttons or list in the case",
        field: 'interactive',
      },
      data: {},
    }
    const hi = { type: 'button_reply', button_reply: { id: '/hi', title: 'Say hi' } }
    for (const interactive of [
      { type: 'button_reply', button_reply: { id: '/refund', title: 'Say hi' } }, // an id not offered
      { type: 'button_reply', button_reply: { id: '/hi', title: 'Refund me' } }, // another title
      { type: 'list_reply', list_reply: { id: '/hi', title: 'Say hi' } }, // a button is no list row
    ]) {
      expect((await choose(visitor, caseID, { interactive })).json, JSON.stringify(interactive)).toEqual(
        notOffered,
      )
    }
    const first = await choose(visitor, caseID, { interactive: hi }, 'hi-once')
    expect(first.status).toBe(200)

    // The chatbot offers a list now: its buttons are no longer choices, but a retry still answers.
    await webhook(server(), chatbot)(
      {
        caseID,
        eventType: 'messages',
        messages: [{ type: 'text', text: { body: 'Topics' }, customData: list }],
      },
      { secretKey: chatbot.secretKey },
    )
    expect((await choose(visitor, caseID, { interactive: hi })).json).toEqual(notOffered)
    const retry = await choose(visitor, caseID, { interactive: hi }, 'hi-once')
    expect(retry.json.data.message.messageID).toBe(first.json.data.message.messageID)
    // A later message without buttons does not take the list away.
    await webhook(server(), chatbot)(
      { caseID, eventType: 'messages', messages: [{ type: 'text', text: { body: 'Still there?' } }] },
      { secretKey: chatbot.secretKey },
    )
    const row = { type: 'list_reply', list_reply: { id: '/agent 0', title: 'More options' } }
    expect((await choose(visitor, caseID, { interactive: row })).status).toBe(200)

    // Without any interactive message from the chatbot, there is nothing to choose.
    const bare = await org.signIn('quick-bare')
    const plain = await openCase(bare, 'hi')
    expect((await choose(bare, plain.caseID, { interactive: hi })).json).toEqual(notOffered)
  })

  test('the shape of a choice is checked, field by field', async () => {
    const { visitor, caseID } = await offered()
    const button = (reply: unknown) => ({ interactive: { type: 'button_reply', button_reply: reply } })
    const cases: [Record<string, unknown>, string, string][] = [
      [{ interactive: 'yes' }, "Param 'interactive' must be an object", 'interactive'],
      [{ interactive: {} }, "Param 'interactive.type' is required", 'interactive'],
      [
        { interactive: { type: 'button' } },
        "Param 'interactive.type' must be one of: button_reply, list_reply",
        'interactive',
      ],
      [
        { interactive: { type: 'button_reply' } },
        "Param 'interactive.button_reply' is required",
        'interactive',
      ],
      [button({ title: 'Say hi' }), "Param 'interactive.button_reply.id' is required", 'interactive'],
      [
        button({ id: 'x'.repeat(257), title: 'Say hi' }),
        "Param 'interactive.button_reply.id' must be at most 256 characters",
        'interactive',
      ],
      [
        button({ id: '/hi', title: 'x'.repeat(73) }),
        "Param 'interactive.button_reply.title' must be at most 72 characters",
        'interactive',
      ],
      [
        {
          interactive: {
            type: 'list_reply',
            list_reply: { id: '/a', title: 'A', description: 'd'.repeat(73) },
          },
        },
        "Param 'interactive.list_reply.description' must be at most 72 characters",
        'interactive',
      ],
      [button({ id: '/hi\u0000', title: 'Say hi' }), "Param 'interactive' is invalid", 'interactive'],
      [
        { ...button({ id: '/hi', title: 'Say hi' }), text: { body: 'Something else' } },
        "Param 'text.body' must be the chosen button's or row's title",
        'text',
      ],
      [
        {
          ...button({ id: '/hi', title: 'Say hi' }),
          messageType: 'image',
          image: { url: 'https://example.com/a.png' },
        },
        "Param 'interactive' is only allowed with messageType text",
        'interactive',
      ],
    ]
    for (const [body, message, field] of cases) {
      const reply = await choose(visitor, caseID, body)
      expect(reply.json, JSON.stringify(body).slice(0, 200)).toEqual({
        status: 400,
        error: { code: '40002', message, field },
        data: {},
      })
    }
    // 256-character ids and 72-character titles pass the shape (and are then not offered).
    const longest = await choose(visitor, caseID, button({ id: 'x'.repeat(256), title: 'y'.repeat(72) }))
    expect(longest.json.error.message).toContain('does not match')
    // null is no choice: an ordinary text message.
    const plain = await choose(visitor, caseID, { text: { body: 'just text' }, interactive: null })
    expect(plain.json.data.message.data).toEqual({})
  })
})
