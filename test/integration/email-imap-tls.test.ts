import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { roomMessages } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { dialects } from '../support/databases.js'
import { haveDovecot, IMAP_PASSWORD, startDovecot } from '../support/dovecot.js'
import { eventually } from '../support/poll.js'

const SUPPORT = 'support@shop.example'
const mail = (n: number) =>
  `From: Vera <vera@customer.example>\r\nTo: ${SUPPORT}\r\nSubject: Order ${n}\r\nMessage-ID: <tls-${n}@customer.example>\r\n\r\nQuestion ${n}\r\n`

// Mail fetched over TLS from a real Dovecot whose certificate a CA made by the test signed
// (openssl): refused until the mailbox trusts that CA, then taken by implicit TLS and by STARTTLS.
for (const dialect of dialects)
  describe.skipIf(!haveDovecot)(`e-mail over IMAP with TLS [${dialect}]`, () => {
    const started = useServer(dialect)
    let dovecot: Awaited<ReturnType<typeof startDovecot>>
    let admin: Awaited<ReturnType<typeof signInAgent>>

    beforeAll(async () => {
      dovecot = await startDovecot({ tls: true })
      const org = await createOrganization(started(), 'Shop')
      admin = await signInAgent(started(), org.organizationID, 'root@shop.example', { role: 'admin' })
    })
    afterAll(async () => dovecot?.close())

    const connect = async (imap: { port: number; secure: boolean; ca?: string }) => {
      const server = { host: '127.0.0.1', user: 'support', password: IMAP_PASSWORD, ...imap }
      // Settings are told apart by their time (the poller connects anew): the server's clock is ours.
      started().clock.advance(1000)
      const reply = await admin.call('/admin/mailbox/connect', { address: SUPPORT, imap: server })
      await started().app.imapPoller.refresh()
      return reply
    }
    const mailbox = async () => (await admin.call('/admin/mailbox/get')).json.data.mailbox
    const bodies = async () => {
      const { cases } = (await admin.call('/case/get_list', {})).json.data
      const rooms = await Promise.all(
        (cases as { roomID: string }[]).map((c) => roomMessages(started(), c.roomID)),
      )
      return rooms.flat().map((m) => m.body as string)
    }

    test('a certificate of an untrusted CA is refused, by implicit TLS and by STARTTLS; nothing is taken', async () => {
      await dovecot.deliver('support', mail(1))
      for (const imap of [
        { port: dovecot.tlsPort, secure: true },
        { port: dovecot.port, secure: false },
      ]) {
        // Logged after the settings changed: by the new connection (refresh stopped the old one).
        const from = started().logs.length
        await connect(imap)
        await eventually(
          () =>
            started()
              .logs.slice(from)
              .some((line) => line.includes('IMAP poll failed') && /certificate/i.test(line)),
          `the refusal with ${JSON.stringify(imap)}`,
        )
        // Recorded just after it is logged.
        await eventually(async () => /certificate/i.test((await mailbox()).lastError), 'the health')
      }
      expect(await bodies()).toEqual([])
    })

    test('trusting the CA: mail is taken over implicit TLS', async () => {
      const reply = await connect({ port: dovecot.tlsPort, secure: true, ca: dovecot.ca })
      expect(reply.json.data.mailbox.imap.ca).toBe(dovecot.ca)
      await eventually(async () => (await bodies()).includes('Question 1'), 'the mail over TLS', 30_000)
      // Recorded once the message is flagged, just after it is stored.
      await eventually(async () => (await mailbox()).lastError === '', 'the health cleared')
    })

    test('trusting the CA: mail is taken over STARTTLS', async () => {
      await connect({ port: dovecot.port, secure: false, ca: dovecot.ca })
      await dovecot.deliver('support', mail(2))
      await eventually(async () => (await bodies()).includes('Question 2'), 'the mail over STARTTLS', 30_000)
      expect((await bodies()).filter((b) => b === 'Question 1')).toHaveLength(1)
    })

    test('a CA that is not a certificate is refused (400)', async () => {
      const reply = await connect({ port: dovecot.tlsPort, secure: true, ca: 'not a certificate' })
      expect(reply.status).toBe(400)
      expect(reply.json.error.code).toBe('40002')
    })
  })
