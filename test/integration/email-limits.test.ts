import { randomInt } from 'node:crypto'
import { beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { sendMail } from '../support/mail.js'

const SUPPORT = 'support@limits.example'
const DAY_MS = 86_400_000

// The inbound SMTP listener's rates over real SMTP: 2 messages a minute per sender, 5 per client.
describeEachDatabase('e-mail listener rates', (dialect) => {
  const started = useServer(dialect, {
    EMAIL_SMTP_HOST: '127.0.0.1',
    EMAIL_SMTP_PORT: '0',
    EMAIL_SMTP_PER_SENDER_PER_MINUTE: '2',
    EMAIL_SMTP_PER_CLIENT_PER_MINUTE: '5',
  })

  beforeAll(async () => {
    const org = await createOrganization(started(), 'Limits')
    const admin = await signInAgent(started(), org.organizationID, 'root@limits.example', { role: 'admin' })
    await admin.call('/admin/mailbox/connect', { address: SUPPORT })
    // A minute of its own: with Redis, other tests' mail from this client counts in the same keys.
    started().clock.advance(randomInt(1_000, 100_000) * DAY_MS)
  })

  const send = (from: string) =>
    sendMail(started().app.smtpPort() as number, { from, to: SUPPORT, subject: 'Hi', text: 'Hello' })
  const refusals = async () => {
    const text = await (await fetch(`${started().url}/metrics`)).text()
    const count = (limit: string) =>
      Number(
        text.match(new RegExp(`parley_email_smtp_refusals_total\\{limit="${limit}"\\} (\\d+)`))?.[1] ?? 0,
      )
    return { sender: count('sender'), client: count('client') }
  }

  test('past its rate a sender is refused for now (451), past its rate the client is disconnected (421); a minute later both may send again', async () => {
    await send('vera@customer.example')
    await send('vera@customer.example')
    await expect(send('vera@customer.example')).rejects.toMatchObject({ responseCode: 451 })
    await send('wes@customer.example')
    await send('wes@customer.example')
    // The client's 6th message in the minute (the refused one counts).
    await expect(send('xia@customer.example')).rejects.toMatchObject({ responseCode: 421 })
    expect(await refusals()).toEqual({ sender: 1, client: 1 })
    started().clock.advance(60_000)
    await send('vera@customer.example')
    await send('xia@customer.example')
  })
})
