import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AGENT_PASSWORD } from '../support/agents.js'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { expectNoAxeViolations } from '../support/axe.js'
import { hasChromium, LAPTOP, launchBrowser } from '../support/browser.js'
import { createOrganization, type TestClient } from '../support/clients.js'
import { dialects } from '../support/databases.js'
import { operator } from '../support/fixtures.js'

// The console's moderation page in a real browser: the admin works through users' reports by
// keyboard alone (deleting a message, deactivating a user, resolving), each state checked by axe,
// and each resolution lands in the audit log.

const WAIT = { timeout: 10_000 }

for (const dialect of dialects) {
  describe.skipIf(!hasChromium).sequential(`console: moderation reports [${dialect}]`, () => {
    let server: TestServer
    let browser: Browser
    let page: Page
    let ann: TestClient
    let bob: TestClient
    let org: Awaited<ReturnType<typeof createOrganization>>

    /** Tabs until the focused element is the button named `name`, then presses Enter. */
    const pressButton = async (name: string) => {
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press('Tab')
        const focused = await page.evaluate('document.activeElement?.getAttribute("aria-label")')
        if (focused === name) return page.keyboard.press('Enter')
      }
      throw new Error(`no button ${name} by keyboard`)
    }
    const audited = (action: string) =>
      server.app.database.db
        .selectFrom('audit_log')
        .select('action')
        .where('organization_id', '=', org.organizationID)
        .where('action', '=', action)
        .execute()

    beforeAll(async () => {
      server = await startServer(dialect)
      org = await createOrganization(server)
      await server.app.services.agents.create(operator, org.organizationID, {
        email: 'mia@acme.test',
        fullName: 'Mia Moderator',
        role: 'admin',
        password: AGENT_PASSWORD,
      })
      ann = await org.signIn('ann')
      bob = await org.signIn('bob')
      const sent = await bob.call('/v1/chat/message/send', {
        recipientUserID: ann.userID,
        localID: 'spam-1',
        type: 1001,
        body: 'Buy cheap watches',
      })
      const { messageID, roomID } = sent.json.data.message
      await ann.call('/v1/client/chat_report/submit_message', {
        messageID,
        roomID,
        category: 'spam',
        reason: 'ads',
      })
      await ann.call('/v1/client/chat_report/submit_user', { userID: bob.userID, category: 'abuse' })
      browser = await launchBrowser()
      page = await (await browser.newContext({ viewport: LAPTOP })).newPage()
      page.on('dialog', (dialog) => void dialog.accept())
    })
    afterAll(async () => {
      await browser?.close()
      if (server) await stopServer(server)
    })

    test('the admin opens the queue and deletes the reported message, by keyboard', async () => {
      await page.goto(`${server.url}/console/`)
      await page.getByLabel('E-mail').fill('mia@acme.test')
      await page.getByLabel('Password').fill(AGENT_PASSWORD)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.locator('[data-live="open"]').waitFor(WAIT)
      await page.getByRole('link', { name: 'Moderation' }).click()
      await page.getByText('Message: “Buy cheap watches”').waitFor(WAIT)
      await expectNoAxeViolations(page, 'moderation queue')
      await pressButton('Delete message of User bob')
      // Resolved: it leaves the open queue.
      await page.getByText('Message: “Buy cheap watches”').waitFor({ state: 'detached', ...WAIT })
      const stored = await server.app.database.db
        .selectFrom('messages')
        .select('is_deleted')
        .where('local_id', '=', 'spam-1')
        .executeTakeFirstOrThrow()
      expect(stored.is_deleted).toBe(1)
      expect(await audited('message.delete')).toHaveLength(1)
    })

    test('deactivates the reported user; the resolved list shows both outcomes', async () => {
      await pressButton('Deactivate user User bob')
      await page.getByText('No open reports').waitFor(WAIT)
      expect((await bob.call('/v1/client/room/get', { roomID: 'x' })).status).toBe(401)
      expect(await audited('user.deactivate')).toHaveLength(1)
      expect(await audited('report.resolve')).toHaveLength(2)
      await page.getByLabel('Show').selectOption('resolved')
      await page.getByText('User deactivated').waitFor(WAIT)
      await page.getByText('Message deleted').waitFor(WAIT)
      await expectNoAxeViolations(page, 'moderation: resolved reports')
    })
  })
}
