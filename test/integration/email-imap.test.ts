import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { roomMessages } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { dialects } from '../support/databases.js'
import { haveDovecot, IMAP_PASSWORD, startDovecot } from '../support/dovecot.js'
import { eventually } from '../support/poll.js'

const SUPPORT = 'support@shop.example'
const mail = (n: number, extra = '') =>
  `From: Vera <vera@customer.example>\r\nTo: ${SUPPORT}\r\nSubject: Order ${n}\r\nMessage-ID: <order-${n}@customer.example>\r\n${extra}\r\nQuestion ${n}\r\n`

// Mail fetched over IMAP from a real Dovecot (started here on a free port, killed at the end).
for (const dialect of dialects)
  describe.skipIf(!haveDovecot)(`e-mail over IMAP [${dialect}]`, () => {
    const started = useServer(dialect)
    let dovecot: Awaited<ReturnType<typeof startDovecot>>
    let admin: Awaited<ReturnType<typeof signInAgent>>

    beforeAll(async () => {
      dovecot = await startDovecot()
      const org = await createOrganization(started(), 'Shop')
      admin = await signInAgent(started(), org.organizationID, 'root@shop.example', { role: 'admin' })
      const imap = {
        host: '127.0.0.1',
        port: dovecot.port,
        secure: false,
        user: 'support',
        password: IMAP_PASSWORD,
      }
      await admin.call('/admin/mailbox/connect', { address: SUPPORT, imap })
      await started().app.imapPoller.refresh()
    })
    afterAll(async () => dovecot?.close())

    const questions = async () => {
      const { cases } = (await admin.call('/case/get_list', {})).json.data
      const rooms = await Promise.all(
        (cases as { roomID: string }[]).map((c) => roomMessages(started(), c.roomID)),
      )
      return {
        cases: cases as { channel: string }[],
        bodies: rooms
          .flat()
          .map((m) => m.body)
          .filter((b) => b.startsWith('Question')),
      }
    }

    test('a new mail in the mailbox becomes a case, and is marked seen; the health says when it was polled', async () => {
      await dovecot.deliver('support', mail(1))
      await eventually(async () => (await questions()).bodies.includes('Question 1'), 'the first mail')
      expect((await questions()).cases).toMatchObject([{ channel: 'email' }])
      await eventually(
        async () => [...(await dovecot.flags('support')).values()].every((f) => f.includes('\\Seen')),
        'seen',
      )
      const { mailbox } = (await admin.call('/admin/mailbox/get')).json.data
      expect(mailbox).toMatchObject({ lastError: '', imap: { host: '127.0.0.1', hasPassword: true } })
      expect(mailbox.lastPollAt).toEqual(expect.any(Number))
    })

    test('auto-replies in the mailbox are taken (seen) but open nothing', async () => {
      await dovecot.deliver('support', mail(100, 'Auto-Submitted: auto-replied\r\n'))
      await eventually(
        async () => [...(await dovecot.flags('support')).values()].every((f) => f.includes('\\Seen')),
        'seen',
      )
      expect((await questions()).bodies).not.toContain('Question 100')
    })

    test('the IMAP server restarted mid-poll: nothing taken twice, nothing missed', async () => {
      const numbers = Array.from({ length: 20 }, (_, i) => i + 2)
      // The poll is held at its 5th message (fetched, not yet stored) while Dovecot restarts under
      // it: the restart lands mid-poll, with 15 messages still to fetch.
      const { inbound } = started().app.services.email
      const take = inbound.take.bind(inbound)
      let handed = 0
      let release = () => {}
      const held = new Promise<void>((resolve) => {
        release = resolve
      })
      let reached = () => {}
      const atFifth = new Promise<void>((resolve) => {
        reached = resolve
      })
      inbound.take = async (...args) => {
        if (++handed === 5) {
          reached()
          await held
        }
        return take(...args)
      }
      const before = (await questions()).bodies.length
      try {
        for (const n of numbers) await dovecot.deliver('support', mail(n))
        await atFifth
        expect((await questions()).bodies.length).toBe(before + 4)
        const logged = started().logs.length
        await dovecot.restart()
        release()
        // Mail delivered while the poller reconnects is fetched too.
        await dovecot.deliver('support', mail(22))
        const expected = ['Question 1', ...numbers.map((n) => `Question ${n}`), 'Question 22'].sort()
        await eventually(
          async () => (await questions()).bodies.length >= expected.length,
          'every mail',
          30_000,
        )
        expect((await questions()).bodies.sort()).toEqual(expected)
        // The restart broke the poll under way (then a new connection took the rest).
        expect(
          started()
            .logs.slice(logged)
            .some((line) => line.includes('IMAP poll failed')),
        ).toBe(true)
      } finally {
        inbound.take = take
        release()
      }
    }, 60_000)
  })
