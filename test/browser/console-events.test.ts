import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AGENT_PASSWORD } from '../support/agents.js'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import { hasChromium, launchBrowser, signedInConsole } from '../support/browser.js'
import { createOrganization } from '../support/clients.js'
import { operator } from '../support/fixtures.js'

// The console's Event endpoints page in a real browser: create an endpoint (its secret shown once),
// see its recent deliveries, send one again, and the banner of an endpoint Parley disabled.
const WAIT = { timeout: 10_000 }

describe.skipIf(!hasChromium)('console: event endpoints [sqlite]', () => {
  let server: TestServer
  let browser: Browser
  let page: Page
  let backend: Awaited<ReturnType<typeof startBot>>
  let org: Awaited<ReturnType<typeof createOrganization>>

  beforeAll(async () => {
    backend = await startBot()
    server = await startServer('sqlite')
    org = await createOrganization(server)
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
    if (server) await stopServer(server)
    await backend?.close()
  })

  test('create, see deliveries, send again; a disabled endpoint shows a banner', async () => {
    await page.getByRole('link', { name: 'Events' }).click()
    await page.getByText('No event endpoints yet').waitFor(WAIT)
    await page.getByLabel('URL').fill(backend.url)
    await page.getByLabel('user.created').check()
    await page.getByRole('button', { name: 'Create endpoint' }).click()
    await page.getByText('Signing secret of the new endpoint').waitFor(WAIT)
    const section = page.getByRole('region', { name: `Endpoint ${backend.url}` })
    await section.waitFor(WAIT)

    await org.signIn('grace')
    await server.app.delivery.drain()
    expect(backend.requests.at(-1)?.json).toMatchObject({ type: 'user.created' })

    await section.getByRole('button', { name: 'Deliveries' }).click()
    const row = section.getByRole('row', { name: /user\.created/ })
    await row.getByText('sent').waitFor(WAIT)
    await row.getByRole('button', { name: 'Send again' }).click()
    await row.getByText('pending').waitFor(WAIT)
    await server.app.delivery.drain()
    expect(backend.requests).toHaveLength(2)
    expect(backend.requests[1]?.headers['webhook-id']).toBe(backend.requests[0]?.headers['webhook-id'])

    // As the delivery worker disables a dead endpoint (test/integration/events.test.ts): the banner tells why.
    const { db } = server.testDatabase.database
    await db
      .updateTable('event_endpoints')
      .set({ active: 0, disabled_at: server.clock.now(), disabled_reason: 'failed every attempt for 24 h' })
      .execute()
    await page.reload()
    await page
      .getByRole('alert')
      .getByText(/disabled after failing for too long/)
      .waitFor(WAIT)
    await section.getByText('failed every attempt for 24 h').waitFor(WAIT)
    await section.getByRole('button', { name: 'Enable' }).click()
    await section.getByText('active', { exact: true }).waitFor(WAIT)
  })
})
