import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { MAX_RETRY_MS } from '../../src/domain/delivery/schedule.js'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { makeCertificates } from '../support/certificates.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { sendMail, startMailSink } from '../support/mail.js'

const SUPPORT = 'support@shop.example'

// Replies out over TLS to a real SMTP server whose certificate a CA made by the test signed
// (openssl): refused until the mailbox trusts that CA (`smtp.ca`), then sent, by TLS from the first
// byte and by STARTTLS. A reply refused for its certificate is retried, not lost.
describeEachDatabase('e-mail replies over SMTP with TLS', (dialect) => {
  const started = useServer(dialect, { EMAIL_SMTP_HOST: '127.0.0.1', EMAIL_SMTP_PORT: '0' })
  let dir = ''
  let certificates: ReturnType<typeof makeCertificates>
  const sinks: Awaited<ReturnType<typeof startMailSink>>[] = []
  let admin: Awaited<ReturnType<typeof signInAgent>>
  let agent: Awaited<ReturnType<typeof signInAgent>>

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-smtp-tls-'))
    certificates = makeCertificates(dir)
    const org = await createOrganization(started(), 'Shop')
    admin = await signInAgent(started(), org.organizationID, 'root@shop.example', { role: 'admin' })
    agent = await signInAgent(started(), org.organizationID, 'ada@shop.example', { maxConcurrentCases: 5 })
    await agent.call('/agent/set_status', { status: 'online' })
  })
  afterAll(async () => {
    try {
      for (const sink of sinks) await sink.close()
    } finally {
      if (dir) rmSync(dir, { recursive: true })
    }
  })

  const connect = async (smtp: { port: number; secure: boolean; ca?: string }) => {
    // Settings are told apart by their time (the transport is made anew): the server's clock is ours.
    started().clock.advance(1000)
    const reply = await admin.call('/admin/mailbox/connect', {
      address: SUPPORT,
      smtp: { host: '127.0.0.1', user: 'parley', password: 'sink secret', ...smtp },
    })
    expect(reply.status).toBe(200)
  }
  /** A visitor's mail opens a case, and the agent answers it: the reply's delivery, as stored. */
  const replyToNewCase = async (n: number) => {
    await sendMail(started().app.smtpPort() as number, {
      from: `Vera <vera${n}@customer.example>`,
      to: SUPPORT,
      subject: `Order ${n}`,
      text: `Question ${n}`,
    })
    const { cases } = (await agent.call('/case/get_list', {})).json.data
    const opened = (cases as { caseID: string; firstMessage: string }[]).find(
      (c) => c.firstMessage === `Question ${n}`,
    )
    const reply = { id: opened?.caseID, localID: `r${n}`, messageType: 'text', text: { body: `Answer ${n}` } }
    const sent = await agent.call('/case/send_message', reply)
    expect(sent.status).toBe(200)
    await started().app.delivery.drain()
    return async () =>
      await started()
        .testDatabase.database.db.selectFrom('deliveries')
        .select(['status', 'last_error'])
        .where('target', '=', 'email')
        .where('message_id', '=', sent.json.data.message.messageID)
        .executeTakeFirstOrThrow()
  }
  const retryNow = async () => {
    started().clock.advance(MAX_RETRY_MS)
    await started().app.delivery.drain()
  }

  test.each([
    { way: 'TLS from the first byte', secure: true, n: 1 },
    { way: 'STARTTLS', secure: false, n: 2 },
  ])('$way: refused without the CA, sent once it is given', async ({ secure, n }) => {
    const sink = await startMailSink({ cert: certificates.cert, key: certificates.key, secure })
    sinks.push(sink)
    await connect({ port: sink.port, secure })
    const delivery = await replyToNewCase(n)
    expect(sink.received).toHaveLength(0)
    expect(await delivery()).toMatchObject({
      status: 'pending',
      last_error: expect.stringMatching(/certificate/),
    })

    await connect({ port: sink.port, secure, ca: certificates.ca })
    await retryNow()
    expect(sink.received.map((mail) => mail.text?.trim())).toEqual([`Answer ${n}`])
    expect((await delivery()).status).toBe('sent')
  })
})
