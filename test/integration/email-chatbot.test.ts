import { afterAll, beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import { webhook } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { sendMail, startMailSink } from '../support/mail.js'

// The whole story by e-mail: a visitor writes to support, the chatbot answers, an agent
// takes over, and the visitor's mail client has one thread.
describeEachDatabase('e-mail with a chatbot', (dialect) => {
  const server = useServer(dialect, { EMAIL_SMTP_HOST: '127.0.0.1', EMAIL_SMTP_PORT: '0' })
  let sink: Awaited<ReturnType<typeof startMailSink>>
  let bot: Awaited<ReturnType<typeof startBot>>

  beforeAll(async () => {
    sink = await startMailSink()
    bot = await startBot()
  })
  afterAll(async () => {
    await sink?.close()
    await bot?.close()
  })

  test('the chatbot answers by e-mail, an agent takes over, and every reply threads on the first mail', async () => {
    const { app } = server()
    const org = await createOrganization(server(), 'Shop')
    const chatbot = await app.services.chatbots.create(operator, org.organizationID, {
      name: 'Parcel bot',
      url: bot.url,
    })
    const agent = await signInAgent(server(), org.organizationID, 'ada@shop.example')
    await agent.call('/agent/set_status', { status: 'online' })
    const smtp = { host: '127.0.0.1', port: sink.port, secure: false, user: '' }
    await app.services.email.mailboxes.connect(operator, org.organizationID, {
      address: 'help@shop.example',
      smtp,
    })

    await sendMail(app.smtpPort() as number, {
      from: 'vera@customer.example',
      to: 'help@shop.example',
      subject: 'Parcel',
      text: 'Where is my parcel?',
      messageId: '<start@customer.example>',
    })
    await app.delivery.drain()
    const [delivered] = bot.requests
    expect(delivered?.json.message.text.body).toBe('Where is my parcel?')
    const caseID = delivered?.json.caseID as string
    const say = webhook(server(), chatbot)
    await say(
      { caseID, eventType: 'messages', messages: [{ type: 'text', text: { body: 'Checking…' } }] },
      chatbot,
    )
    await say({ caseID, eventType: 'handover_case' }, chatbot)
    await agent.call('/case/send_message', {
      id: caseID,
      localID: 'a1',
      messageType: 'text',
      text: { body: 'It is here.' },
    })
    await app.delivery.drain()

    expect(sink.received.map((mail) => [mail.from?.value[0]?.name, mail.text?.trim()])).toEqual([
      ['Parcel bot', 'Checking…'],
      ['ada@shop.example', 'It is here.'],
    ])
    for (const mail of sink.received) {
      expect(mail.inReplyTo).toBe('<start@customer.example>')
      expect(mail.references).toContain('<start@customer.example>')
      expect(mail.subject).toBe('Re: Parcel')
    }
  })
})
