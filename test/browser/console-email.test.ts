import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AGENT_PASSWORD } from '../support/agents.js'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { expectNoAxeViolations } from '../support/axe.js'
import { hasChromium, launchBrowser, signedInConsole } from '../support/browser.js'
import { makeCertificates } from '../support/certificates.js'
import { createOrganization } from '../support/clients.js'
import { dialects } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { sendMail, startMailSink } from '../support/mail.js'

const WAIT = { timeout: 10_000 }

// The console's e-mail parts in a real browser: the mailbox page, driven by the keyboard, and an
// e-mail case whose HTML (with a script) is shown cleaned in a sandboxed frame.
for (const dialect of dialects)
  describe.skipIf(!hasChromium).sequential(`console: e-mail [${dialect}]`, () => {
    let server: TestServer
    let browser: Browser
    let page: Page
    let sink: Awaited<ReturnType<typeof startMailSink>>

    beforeAll(async () => {
      server = await startServer(dialect, { EMAIL_SMTP_HOST: '127.0.0.1', EMAIL_SMTP_PORT: '0' })
      sink = await startMailSink()
      const org = await createOrganization(server)
      await server.app.services.agents.create(operator, org.organizationID, {
        email: 'ada@acme.test',
        fullName: 'Ada Admin',
        role: 'admin',
        password: AGENT_PASSWORD,
      })
      browser = await launchBrowser()
      page = await signedInConsole(browser, server.url, 'ada@acme.test')
    })
    afterAll(async () => {
      await browser?.close()
      await sink?.close()
      if (server) await stopServer(server)
    })

    test('the admin connects the mailbox with the keyboard and sees its health', async () => {
      await page.getByRole('link', { name: 'Mailbox' }).click()
      const address = page.getByLabel('Support address')
      await address.waitFor(WAIT)
      await expectNoAxeViolations(page, 'mailbox, not connected')
      await address.focus()
      await page.keyboard.type('support@acme.test')
      await page.keyboard.press('Tab')
      await page.keyboard.type('Acme support')
      await page.keyboard.press('Tab') // the SMTP server
      await page.keyboard.type('127.0.0.1')
      await page.keyboard.press('Tab')
      await page.keyboard.press('ControlOrMeta+a')
      await page.keyboard.type(String(sink.port))
      await page.keyboard.press('Enter')
      await page.getByTestId('mailbox-error').waitFor(WAIT)
      await expect(page.getByTestId('mailbox-error').textContent()).resolves.toBe('none')
      await expectNoAxeViolations(page, 'mailbox, connected')
      const mailbox = await server.app.services.email.mailboxes.byAddress('support@acme.test')
      expect(mailbox).toMatchObject({
        smtp_host: '127.0.0.1',
        smtp_port: sink.port,
        display_name: 'Acme support',
      })
    })

    // After the test above, which connected the SMTP server (the tests of this file run in order).
    test("the admin gives the SMTP server's own certificate authority; what is no certificate is refused", async () => {
      const smtp = page.getByRole('group', { name: 'Outgoing mail (SMTP)' })
      const ca = smtp.getByLabel(
        "Your own certificate authority (optional), trusted for this server besides the system's",
      )
      const connect = page.getByRole('button', { name: 'Connect' })
      await ca.fill('not a certificate')
      await connect.click()
      await page.getByText('must be a PEM certificate').waitFor(WAIT)
      const dir = mkdtempSync(join(tmpdir(), 'parley-ca-'))
      let pem: string
      try {
        pem = makeCertificates(dir).ca
      } finally {
        rmSync(dir, { recursive: true })
      }
      const saved = () => page.waitForResponse((response) => response.url().includes('admin/mailbox/connect'))
      await ca.fill(pem)
      await Promise.all([saved(), connect.click()])
      await expect
        .poll(
          async () => (await server.app.services.email.mailboxes.byAddress('support@acme.test'))?.smtp_ca,
          WAIT,
        )
        .toBe(pem)
      // Shown again after a reload, and kept by a save that does not touch it.
      await page.reload()
      await expect.poll(() => ca.inputValue(), WAIT).toBe(pem)
      await expectNoAxeViolations(page, 'mailbox, with a certificate authority')
      const [answer] = await Promise.all([saved(), connect.click()])
      expect(answer.status()).toBe(200)
      expect((await server.app.services.email.mailboxes.byAddress('support@acme.test'))?.smtp_ca).toBe(pem)
    })

    test('an e-mail case shows its subject, from and to, and its HTML without the script, sandboxed', async () => {
      await sendMail(server.app.smtpPort() as number, {
        from: 'Vera <vera@customer.example>',
        to: 'support@acme.test',
        subject: 'Broken kettle',
        html: '<p>It <b>leaks</b>.</p><img src="http://tracker.example/p.gif"><script>parent.document.title="owned"</script>',
      })
      await page.getByRole('link', { name: 'Inbox' }).click()
      await page.getByText('It leaks.').first().click()
      await page.getByTestId('email-subject').waitFor(WAIT)
      await expect(page.getByTestId('email-subject').textContent()).resolves.toBe('Broken kettle')
      await page.getByText('vera@customer.example').first().waitFor(WAIT)
      await page.getByText('Show the e-mail as sent').click()
      const frame = page.locator('iframe.email-html')
      await expect(frame.getAttribute('sandbox')).resolves.toBe('')
      const srcdoc = (await frame.getAttribute('srcdoc')) ?? ''
      expect(srcdoc).toContain('<b>leaks</b>')
      expect(srcdoc).not.toContain('<script')
      expect(srcdoc).toContain("default-src 'none'")
      await expect(page.title()).resolves.not.toBe('owned')
      await expectNoAxeViolations(page, 'e-mail case')
    })
  })
