import type { AddressInfo } from 'node:net'
import { simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { afterEach, expect, test } from 'vitest'
import { send } from '../support/app.js'
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../support/databases.js'
import { sendMail } from '../support/mail.js'
import { eventually } from '../support/poll.js'
import { freePort, runCLI, runCLIJSON, type ServerProcess, startServerProcess } from '../support/processes.js'

const processes: ServerProcess[] = []
const databases: TestDatabase[] = []
afterEach(async () => {
  for (const p of processes.splice(0)) {
    p.child.kill('SIGKILL')
    await p.exited
  }
  for (const d of databases.splice(0)) await d.drop()
})

/** An SMTP server that holds the first message's DATA unanswered (the sender dies meanwhile), then accepts. */
async function stallingSink() {
  const accepted: string[] = []
  let stalled: () => void = () => {}
  const firstArrived = new Promise<void>((resolve) => {
    stalled = resolve
  })
  let first = true
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData: (stream, _session, done) => {
      simpleParser(stream).then((mail) => {
        if (first) {
          first = false
          stalled()
          return // never answered: the sending instance is killed before the 250
        }
        accepted.push(mail.messageId ?? '')
        done()
      }, done)
    },
  })
  server.on('error', () => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const port = (server.server.address() as AddressInfo).port
  return {
    port,
    accepted,
    firstArrived,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

describeEachDatabase('e-mail across processes', (dialect) => {
  test('an instance killed while a reply is being sent: another sends it, and it is taken exactly once', async () => {
    const sink = await stallingSink()
    const testDatabase = await createTestDatabase(dialect)
    databases.push(testDatabase)
    const smtpPort = await freePort()
    const env = {
      ...(testDatabase.env as Record<string, string>),
      DELIVERY_TIMEOUT: '1',
      EMAIL_SMTP_PORT: String(smtpPort),
      EMAIL_SMTP_HOST: '127.0.0.1',
    }
    try {
      const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Crashy'], env)
      const password = 'correct horse'
      const created = await runCLI(
        [
          'agent',
          'create',
          '--org',
          organizationID,
          '--email',
          'a@crashy.test',
          '--name',
          'Ada',
          '--role',
          'admin',
          '--json',
        ],
        env,
        `${password}\n`,
      )
      expect(created.code).toBe(0)
      const first = await startServerProcess(env)
      processes.push(first)
      const call = async (url: string, path: string, body: unknown, token = '') =>
        (
          await send(`${url}/api/agent/v1${path}`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...(token ? { authorization: `Bearer ${token}` } : {}),
            },
            body: JSON.stringify(body),
          })
        ).json.data
      const { token } = await call(first.url, '/auth/login', { email: 'a@crashy.test', password })
      await call(first.url, '/agent/set_status', { status: 'online' }, token)
      const smtp = { host: '127.0.0.1', port: sink.port, secure: false, user: '' }
      await call(first.url, '/admin/mailbox/connect', { address: 'support@crashy.test', smtp }, token)
      await sendMail(smtpPort, {
        from: 'vera@customer.test',
        to: 'support@crashy.test',
        subject: 'Hi',
        text: 'Hello?',
      })
      const [opened] = (await call(first.url, '/case/get_list', {}, token)).cases
      await call(
        first.url,
        '/case/send_message',
        { id: opened.caseID, localID: 'r1', messageType: 'text', text: { body: 'Hello!' } },
        token,
      )
      await sink.firstArrived
      first.child.kill('SIGKILL')
      await first.exited

      const second = await startServerProcess(env)
      processes.push(second)
      // Its lease lapses (3 × DELIVERY_TIMEOUT), and the second instance sends it.
      await eventually(() => sink.accepted.length === 1, 'the reply sent again', 20_000, 50)
      const sent = () =>
        testDatabase.database.db
          .selectFrom('deliveries')
          .select('status')
          .where('target', '=', 'email')
          .execute()
      await eventually(
        async () => (await sent()).every((d) => d.status === 'sent'),
        'recorded as sent',
        10_000,
        50,
      )
      expect(sink.accepted).toEqual([expect.stringMatching(/^<parley\.\d+@crashy\.test>$/)])
    } finally {
      await sink.close()
    }
  }, 90_000)
})
