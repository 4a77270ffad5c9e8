import { Webhook } from 'standardwebhooks'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import { openCase } from '../support/cases.js'
import { createOrganization, roomHistory } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'

// A chatbot that opted in (`messageEdits`) hears of edits of its cases' messages while it has the
// case: `message.updated` as event endpoints get it, to its URL, signed like its messages, in the
// case's order (docs/reference/chatbot-webhook.md#edits). One that did not hears nothing new.
describeEachDatabase('chatbot deliveries of edits', (dialect) => {
  const server = useServer(dialect)
  let bot: Awaited<ReturnType<typeof startBot>>

  beforeAll(async () => {
    bot = await startBot(() => 200)
  })
  afterAll(async () => {
    await bot.close()
  })

  const drain = () => server().app.delivery.drain()

  test('the visitor edits: an opted-in chatbot gets message.updated after the message; others nothing', async () => {
    const org = await createOrganization(server(), 'Bot edits')
    const chatbot = await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Bot',
      url: `${bot.origin}/edits`,
    })
    expect(chatbot.messageEdits).toBe(false)
    const visitor = await org.signIn('vera')
    const opened = await openCase(visitor, 'my parcel is lots')
    expect(opened.status).toBe('bot')
    const first = (await roomHistory(visitor, opened.roomID)).find((m) => m.body === 'my parcel is lots')
    const edit = (body: string) => visitor.call('/v1/chat/message/edit', { messageID: first.messageID, body })
    const toBot = () => bot.requests.filter((r) => r.url === '/edits')

    // Not opted in: the message goes, the edit does not.
    expect((await edit('my parcel is lost')).status).toBe(200)
    await drain()
    expect(toBot().map((r) => r.json.message?.id ?? r.json.type)).toEqual([first.messageID])

    // Opted in (admin API): the edit follows, as event endpoints get it, signed with the bot's secret.
    const admin = await signInAgent(server(), org.organizationID, 'admin@bot-edits.test', { role: 'admin' })
    const updated = await admin.call('/admin/chatbot/update', {
      chatbotID: chatbot.chatbotID,
      messageEdits: true,
    })
    expect(updated.json.data).toMatchObject({ messageEdits: true, caseEvents: false })
    server().clock.advance(1000)
    expect((await edit('my parcel is lost, order 42')).status).toBe(200)
    await drain()
    const delivered = toBot().at(-1)
    expect(delivered?.json).toEqual({
      type: 'message.updated',
      timestamp: new Date(server().clock.now()).toISOString(),
      organizationID: org.organizationID,
      data: {
        message: expect.objectContaining({
          messageID: first.messageID,
          roomID: opened.roomID,
          senderID: visitor.userID,
          body: 'my parcel is lost, order 42',
          edited: server().clock.now(),
        }),
      },
    })
    const headers = delivered?.headers as Record<string, string>
    expect(headers['x-secret-key']).toBe(chatbot.secretKey)
    const signature = new Webhook(chatbot.secretKey).sign(
      headers['webhook-id'] ?? '',
      new Date(Number(headers['webhook-timestamp']) * 1000),
      delivered?.body ?? '',
    )
    expect(headers['webhook-signature']).toBe(signature)

    // Handed over to agents: the case is no longer the chatbot's, and its edits are not either.
    await server().app.services.cases.chatbotCases.handOver(opened.caseID, 'over to agents')
    const count = toBot().length
    expect((await edit('my parcel is found')).status).toBe(200)
    await drain()
    expect(toBot()).toHaveLength(count)
  })
})
