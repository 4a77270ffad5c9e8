import { expect, test } from 'vitest'
import { useServer } from './support/app.js'
import { openCase } from './support/cases.js'
import { createOrganization } from './support/clients.js'
import { describeEachDatabase } from './support/databases.js'
import { startEchoBot } from './support/echo-bot.js'
import { operator } from './support/fixtures.js'
import { freePort } from './support/processes.js'
import { connect } from './support/sockets.js'

// The example chatbot end to end: Parley delivers (signed), the bot verifies and answers.

describeEachDatabase('examples/echo-bot', (dialect) => {
  const server = useServer(dialect, {}, { delivery: { autoStart: true, pollMs: 20 } })

  test('echoes, hands over on "agent"', async () => {
    const port = await freePort()
    const org = await createOrganization(server())
    const chatbot = await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Echo',
      url: `http://127.0.0.1:${port}/`,
    })
    const webhookURL = `${server().url}/api/visitor/v1/webhook/chatbot/custom/${org.organizationID}/${chatbot.chatbotID}`
    const bot = await startEchoBot({ port, webhookURL, secretKey: chatbot.secretKey })
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
})
