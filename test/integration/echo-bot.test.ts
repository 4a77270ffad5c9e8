import { expect, test } from 'vitest'
import { useServer } from '../support/app.js'
import { openCase } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { startEchoBot } from '../support/echo-bot.js'
import { operator } from '../support/fixtures.js'
import { freePort } from '../support/processes.js'
import { connect } from '../support/sockets.js'

// The example chatbot end to end: Parley delivers (signed), the bot verifies and answers.

describeEachDatabase('examples/echo-bot', (dialect) => {
  const server = useServer(dialect, {}, { delivery: { autoStart: true, pollMs: 20 } })

  /** An organization whose active chatbot is the echo bot, running in its own process. */
  async function withEchoBot(name: string) {
    const port = await freePort()
    const org = await createOrganization(server(), name)
    const chatbot = await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Echo',
      url: `http://127.0.0.1:${port}/`,
    })
    const webhookURL = `${server().url}/api/visitor/v1/webhook/chatbot/custom/${org.organizationID}/${chatbot.chatbotID}`
    return { org, bot: await startEchoBot({ port, webhookURL, secretKey: chatbot.secretKey }) }
  }

  test('echoes, hands over on "agent"', async () => {
    const { org, bot } = await withEchoBot('Acme')
    try {
      const visitor = await org.signIn('echo-visitor')
      const socket = await connect(server().url, visitor.accessToken)
      const opened = await openCase(visitor, 'hello there')
      const echoed = await socket.waitUntil(
        (f) => f.eventName === 'chat/sendMessage' && f.data.user.userRole.code === 'chatbot',
      )
      expect(echoed.data).toMatchObject({ body: 'You said: hello there', roomID: opened.roomID })

      await visitor.call('/api/visitor/v1/client/case/send_message', {
        id: opened.caseID,
        localID: 'ask-agent',
        messageType: 'text',
        text: { body: 'agent' },
      })
      const update = await socket.waitUntil(
        (f) => f.eventName === 'case/update' && f.data.status === 'queued',
      )
      expect(update.data.caseID).toBe(opened.caseID)
      await socket.close()
    } finally {
      bot.stop()
    }
  })

  test('offers quick replies on "menu": "Say hi" says hi, "Talk to agent" hands over', async () => {
    const { org, bot } = await withEchoBot('Menu')
    try {
      const visitor = await org.signIn('menu-visitor')
      const socket = await connect(server().url, visitor.accessToken)
      const fromBot = (body: string) =>
        socket.waitUntil(
          (f) =>
            f.eventName === 'chat/sendMessage' &&
            f.data.user.userRole.code === 'chatbot' &&
            f.data.body === body,
        )
      const opened = await openCase(visitor, 'menu')
      const menu = await fromBot('What would you like to do?')
      const offered = JSON.parse(menu.data.data.customData)
      expect(offered.interactive.buttonAction.buttons.map((b: { reply: unknown }) => b.reply)).toEqual([
        { id: '/agent', title: 'Talk to agent' },
        { id: '/hi', title: 'Say hi' },
      ])
      const choose = (id: string, title: string) =>
        visitor.call('/api/visitor/v1/client/case/send_message', {
          id: opened.caseID,
          localID: `choose-${id}`,
          messageType: 'text',
          text: { body: title },
          interactive: { type: 'button_reply', button_reply: { id, title } },
        })
      expect((await choose('/hi', 'Say hi')).status).toBe(200)
      await fromBot('Hi there!')
      expect((await choose('/agent', 'Talk to agent')).status).toBe(200)
      const update = await socket.waitUntil(
        (f) => f.eventName === 'case/update' && f.data.status === 'queued',
      )
      expect(update.data.caseID).toBe(opened.caseID)
      await socket.close()
    } finally {
      bot.stop()
    }
  })
})
