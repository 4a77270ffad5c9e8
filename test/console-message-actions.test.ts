import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AGENT_PASSWORD } from './support/agents.js'
import { startServer, stopServer, type TestServer } from './support/app.js'
import { expectNoAxeViolations } from './support/axe.js'
import { hasChromium, launchBrowser, signedInConsole } from './support/browser.js'
import { openCase } from './support/cases.js'
import { createOrganization, roomHistory, type TestClient } from './support/clients.js'
import { operator } from './support/fixtures.js'

// The case view in a real browser shows a visitor's edit ("edited", the new text) and reactions,
// live, as the visitor makes them.
const WAIT = { timeout: 10_000 }

describe.skipIf(!hasChromium)('console: edits and reactions in a case [sqlite]', () => {
  let server: TestServer
  let browser: Browser
  let page: Page
  let visitor: TestClient

  beforeAll(async () => {
    server = await startServer('sqlite')
    const org = await createOrganization(server)
    await server.app.services.agents.create(operator, org.organizationID, {
      email: 'ada@acme.test',
      fullName: 'Ada Admin',
      role: 'admin',
      password: AGENT_PASSWORD,
    })
    visitor = await org.signIn('visitor-1')
    browser = await launchBrowser()
    page = await signedInConsole(browser, server.url, 'ada@acme.test')
  })
  afterAll(async () => {
    await browser?.close()
    if (server) await stopServer(server)
  })

  test('the visitor edits a message and reacts: the case view shows it', async () => {
    const opened = await openCase(visitor, 'my parcel is lots')
    await page.goto(`${server.url}/console/cases/${opened.caseID}`)
    const bubble = page.locator('.bubble-row.visitor', { hasText: 'my parcel is lots' })
    await bubble.waitFor(WAIT)
    const first = (await roomHistory(visitor, opened.roomID)).find((m) => m.body === 'my parcel is lots')
    const edit = await visitor.call('/v1/chat/message/edit', {
      messageID: first.messageID,
      body: 'my parcel is lost',
    })
    expect(edit.status).toBe(200)
    const edited = page.locator('.bubble-row.visitor', { hasText: 'my parcel is lost' })
    await edited.getByText('edited').waitFor(WAIT)
    await visitor.call('/v1/chat/message/reaction/toggle', { messageID: first.messageID, emoji: '🙏' })
    await edited.getByRole('list', { name: 'Reactions' }).getByText('🙏 1').waitFor(WAIT)
    await expectNoAxeViolations(page, 'case with an edited message and a reaction')
  })
})
