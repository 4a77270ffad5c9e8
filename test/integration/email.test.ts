import { afterAll, beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { openCase, roomMessages } from '../support/cases.js'
import { createOrganization, signIn } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { sendMail, startMailSink } from '../support/mail.js'
import { connect } from '../support/sockets.js'

const SUPPORT = 'support@shop.example'
const VISITOR = 'vera@customer.example'

// The e-mail channel end to end over real SMTP: mail in through Parley's listener, replies out
// through the organization's SMTP server (a sink that keeps what it gets), read back parsed.
describeEachDatabase('e-mail channel', (dialect) => {
  // The listener on a port of its own (0: any free one; the test asks the server which).
  const started = useServer(dialect, { EMAIL_SMTP_HOST: '127.0.0.1', EMAIL_SMTP_PORT: '0' })
  let server: ReturnType<typeof started>
  let sink: Awaited<ReturnType<typeof startMailSink>>
  let org: Awaited<ReturnType<typeof createOrganization>>
  let agent: Awaited<ReturnType<typeof signInAgent>>
  let caseID = ''
  let roomID = ''

  beforeAll(async () => {
    server = started()
    sink = await startMailSink()
    org = await createOrganization(server, 'Shop')
    agent = await signInAgent(server, org.organizationID, 'ada@shop.example', { maxConcurrentCases: 5 })
    await agent.call('/agent/set_status', { status: 'online' })
    const admin = await signInAgent(server, org.organizationID, 'root@shop.example', { role: 'admin' })
    const connected = await admin.call('/admin/mailbox/connect', {
      address: SUPPORT,
      displayName: 'Shop support',
      smtp: { host: '127.0.0.1', port: sink.port, secure: false, user: 'parley', password: 'sink secret' },
    })
    expect(connected.json.data.mailbox).toMatchObject({
      address: SUPPORT,
      smtp: { host: '127.0.0.1', user: 'parley', hasPassword: true },
      continuityMinutes: 10,
      lastPollAt: null,
    })
    expect(connected.text).not.toContain('sink secret')
    expect((await agent.call('/admin/mailbox/get')).status).toBe(403)
  })
  afterAll(async () => sink?.close())

  const port = () => server.app.smtpPort() as number
  const cases = async () =>
    (await agent.call('/case/get_list', {})).json.data.cases as {
      caseID: string
      channel: string
      roomID: string
    }[]
  const visitorTexts = async () =>
    (await roomMessages(server, roomID)).filter((m) => !m.sender_id.includes(':') && m.sender_id !== 'system')

  test('a new mail opens an e-mail case for its sender, signature trimmed; the password is sealed', async () => {
    await sendMail(port(), {
      from: `Vera <${VISITOR}>`,
      to: SUPPORT,
      subject: 'Parcel late',
      text: 'Where is my parcel?\n\n-- \nVera, Customer Inc.',
      messageId: '<first@customer.example>',
    })
    const [opened] = await cases()
    expect(opened).toMatchObject({
      channel: 'email',
      status: 'assigned',
      firstMessage: 'Where is my parcel?',
    })
    caseID = opened?.caseID as string
    roomID = opened?.roomID as string
    const stored = await server.testDatabase.database.db
      .selectFrom('mailboxes')
      .selectAll()
      .executeTakeFirstOrThrow()
    expect(stored.smtp_password).not.toContain('sink secret')
    const email = await server.testDatabase.database.db
      .selectFrom('email_messages')
      .selectAll()
      .executeTakeFirstOrThrow()
    expect(email).toMatchObject({ direction: 'in', subject: 'Parcel late', from_address: VISITOR })
    expect(email.original).toContain('Vera, Customer Inc.')
  })

  test("an agent's reply goes out by e-mail: under the agent's name, threaded, replies to the case's address", async () => {
    const reply = { id: caseID, localID: 'r1', messageType: 'text', text: { body: 'It ships today.' } }
    expect((await agent.call('/case/send_message', reply)).status).toBe(200)
    await server.app.delivery.drain()
    expect(sink.received).toHaveLength(1)
    const [mail] = sink.received
    expect(mail?.from?.value[0]).toMatchObject({ name: 'ada@shop.example', address: SUPPORT })
    expect(mail?.to).toMatchObject({ value: [{ address: VISITOR }] })
    expect(mail?.subject).toBe('Re: Parcel late')
    expect(mail?.inReplyTo).toBe('<first@customer.example>')
    expect(mail?.messageId).toMatch(/^<parley\.\d+@shop\.example>$/)
    expect(mail?.replyTo?.value[0]?.address).toMatch(
      new RegExp(`^support\\+${caseID.toLowerCase()}\\.[0-9a-f]{12}@shop\\.example$`),
    )
    expect(mail?.text?.trim()).toBe('It ships today.')
  })

  test('the visitor answers: threaded by In-Reply-To into the case, the quoted history trimmed', async () => {
    const ours = sink.received[0]
    await sendMail(port(), {
      from: VISITOR,
      to: ours?.replyTo?.value[0]?.address as string,
      subject: 'Re: Parcel late',
      inReplyTo: ours?.messageId as string,
      references: ['<first@customer.example>', ours?.messageId as string],
      text: `Thanks!\n\nOn Mon, 1 Jan 2026 at 10:00, Ada <${SUPPORT}> wrote:\n> It ships today.`,
    })
    expect((await visitorTexts()).map((m) => m.body)).toContain('Thanks!')
    expect(await cases()).toHaveLength(1)
  })

  test('a reply with a changed subject and no threading headers finds its case by the reply address', async () => {
    const replyTo = sink.received[0]?.replyTo?.value[0]?.address as string
    await sendMail(port(), {
      from: VISITOR,
      to: replyTo,
      subject: 'Another thing',
      text: 'Also, the colour?',
    })
    expect((await visitorTexts()).map((m) => m.body)).toContain('Also, the colour?')
    expect(await cases()).toHaveLength(1)
  })

  test('HTML with a script: agents read its text; the HTML is kept for the sandboxed view', async () => {
    await sendMail(port(), {
      from: VISITOR,
      to: SUPPORT,
      subject: 'Rich',
      inReplyTo: '<first@customer.example>',
      html: '<p>Hello <b>there</b></p><script>alert("x")</script>',
      messageId: '<html@customer.example>',
    })
    expect((await visitorTexts()).map((m) => m.body)).toContain('Hello there')
    const { emails } = (await agent.call('/case/get_emails', { id: caseID })).json.data
    const rich = emails.find((e: { subject: string }) => e.subject === 'Rich')
    expect(rich).toMatchObject({ direction: 'in', from: VISITOR, to: [SUPPORT] })
    expect(rich.html).toContain('<script>')
    // Parley's reply is in the thread too, under its own Message-ID.
    expect(emails.find((e: { direction: string }) => e.direction === 'out')).toMatchObject({
      subject: 'Re: Parcel late',
      from: SUPPORT,
      to: [VISITOR],
    })
  })

  test('a 30 MB attachment is over the file size limit: refused, and agents see it was sent', async () => {
    const big = Buffer.alloc(30 * 1024 * 1024, 7)
    await sendMail(port(), {
      from: VISITOR,
      to: SUPPORT,
      subject: 'Big',
      inReplyTo: '<first@customer.example>',
      text: 'The video',
      attachments: [
        { filename: 'unboxing.bin', content: big },
        { filename: 'note.txt', content: 'small note' },
      ],
    })
    const texts = (await visitorTexts()).map((m) => m.body)
    expect(texts.find((t) => t.startsWith('The video'))).toMatch(/Attachment "unboxing.bin" was not accepted/)
    const files = (await roomMessages(server, roomID)).filter((m) => m.type === 1004)
    expect(files.map((m) => JSON.parse(m.data).fileName)).toEqual(['note.txt'])
  }, 60_000)

  test('auto-replies, bounces and our own mail coming back open no case and add nothing', async () => {
    const before = (await roomMessages(server, roomID)).length
    const loops = [
      { headers: { 'Auto-Submitted': 'auto-replied' } },
      { headers: { Precedence: 'bulk' } },
      { messageId: sink.received[0]?.messageId as string },
    ]
    for (const [index, extra] of loops.entries())
      await sendMail(port(), {
        from: VISITOR,
        to: SUPPORT,
        subject: `Out of office ${index}`,
        text: 'Away',
        ...extra,
      })
    await sendMail(port(), {
      envelope: { from: '', to: SUPPORT },
      from: 'MAILER-DAEMON@customer.example',
      to: SUPPORT,
      subject: 'Undelivered',
      text: 'bounce',
    })
    expect(await cases()).toHaveLength(1)
    expect((await roomMessages(server, roomID)).length).toBe(before)
  })

  test('mail for an address no organization has is refused at RCPT', async () => {
    await expect(sendMail(port(), { from: VISITOR, to: 'nobody@shop.example', text: 'x' })).rejects.toThrow(
      /550/,
    )
  })

  test('continuity: a widget visitor who left gets the reply by e-mail, and their answer comes back into the case', async () => {
    const visitor = await signIn(server, org.serverKey, 'web-1', { email: 'wes@customer.example' })
    const opened = await openCase(visitor, 'Is the blue one in stock?')
    const send = (localID: string, body: string) =>
      agent.call('/case/send_message', { id: opened.caseID, localID, messageType: 'text', text: { body } })
    const before = sink.received.length
    // Online when the delay is over: nothing by e-mail.
    const socket = await connect(server.url, visitor.accessToken)
    await send('c1', 'Let me look.')
    server.clock.advance(10 * 60_000)
    await server.app.delivery.drain()
    expect(sink.received).toHaveLength(before)
    await socket.close()
    // Gone: not before the delay (10 minutes by default), then by e-mail.
    await send('c2', 'Yes, in stock.')
    await server.app.delivery.drain()
    expect(sink.received).toHaveLength(before)
    server.clock.advance(10 * 60_000)
    await server.app.delivery.drain()
    expect(sink.received).toHaveLength(before + 1)
    const mail = sink.received.at(-1)
    expect(mail?.to).toMatchObject({ value: [{ address: 'wes@customer.example' }] })
    expect(mail?.text?.trim()).toBe('Yes, in stock.')
    await sendMail(port(), {
      from: 'wes@customer.example',
      to: mail?.replyTo?.value[0]?.address as string,
      subject: 'Re: Case',
      inReplyTo: mail?.messageId as string,
      text: `Great, ordering now.\n\nOn Tue, Ada wrote:\n> Yes, in stock.`,
    })
    const answers = (await roomMessages(server, opened.roomID)).filter((m) => m.sender_id === visitor.userID)
    expect(answers.map((m) => m.body)).toEqual(['Is the blue one in stock?', 'Great, ordering now.'])
  })
})
