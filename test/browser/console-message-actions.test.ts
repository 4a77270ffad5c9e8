import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AGENT_PASSWORD, signInAgent } from '../support/agents.js'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { expectNoAxeViolations } from '../support/axe.js'
import { hasChromium, launchBrowser, signedInConsole } from '../support/browser.js'
import { openCase } from '../support/cases.js'
import { createOrganization, roomHistory, type TestClient } from '../support/clients.js'
import { operator } from '../support/fixtures.js'

// The case view in a real browser shows a visitor's edit ("edited", the new text) and reactions,
// live, as the visitor makes them; the agent holding the case edits, reacts and pins there, and so
// does an admin in a case assigned to someone else, which they see change live too. A load's
// answer older than what the socket told meanwhile does not undo it.
// Generous: a loaded machine runs two consoles and a server here.
const WAIT = { timeout: 30_000 }

describe.skipIf(!hasChromium)('console: edits, reactions and pins in a case [sqlite]', () => {
  let server: TestServer
  let browser: Browser
  let page: Page
  let visitor: TestClient
  let org: Awaited<ReturnType<typeof createOrganization>>

  beforeAll(async () => {
    server = await startServer('sqlite')
    org = await createOrganization(server)
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
  }, 150_000)

  test("an edit heard while the case loads is not undone by the load's older answer", async () => {
    const viewer = await signedInConsole(browser, server.url, 'ada@acme.test')
    let editsHeard = 0
    viewer.on('websocket', (socket) =>
      socket.on('framereceived', ({ payload }) => {
        if (String(payload).includes('"chat/updateMessage"')) editsHeard++
      }),
    )
    await viewer.reload()
    await viewer.locator('[data-live="open"]').waitFor(WAIT)
    const shopper = await org.signIn('shopper-3')
    const opened = await openCase(shopper, 'my parcel is lots')
    const first = (await roomHistory(shopper, opened.roomID)).find((m) => m.body === 'my parcel is lots')
    // The case's load reads the message; the visitor edits it; the edit reaches the console; and
    // only then does the load's answer.
    let answer!: () => void
    const answered = new Promise<void>((resolve) => (answer = resolve))
    let read!: () => void
    const wasRead = new Promise<void>((resolve) => (read = resolve))
    await viewer.route(
      '**/case/get_by_id',
      async (route) => {
        const response = await route.fetch()
        read()
        await answered
        await route.fulfill({ response })
      },
      { times: 1 },
    )
    // Opened from within the console, whose socket is open: the case is watched before it loads.
    const path = JSON.stringify(`/console/cases/${opened.caseID}`)
    await viewer.evaluate(
      `history.pushState(null, '', ${path}); dispatchEvent(new PopStateEvent('popstate'))`,
    )
    await wasRead
    const edit = { messageID: first.messageID, body: 'my parcel is lost' }
    expect((await shopper.call('/v1/chat/message/edit', edit)).status).toBe(200)
    await expect.poll(() => editsHeard, WAIT).toBe(1)
    answer()
    const bubble = viewer.locator('.bubble-row.visitor', { hasText: 'my parcel is lost' })
    await bubble.getByText('edited').waitFor(WAIT)
    await viewer.context().close()
  }, 150_000)

  test('the agent holding the case edits, reacts and pins by keyboard; their other console sees it live', async () => {
    const org = await createOrganization(server, 'Keys')
    const bea = await signInAgent(server, org.organizationID, 'bea@keys.test')
    const holder = await signedInConsole(browser, server.url, 'bea@keys.test')
    const viewer = await signedInConsole(browser, server.url, 'bea@keys.test')
    const shopper = await org.signIn('shopper')
    const opened = await openCase(shopper, 'where is my order')
    expect((await bea.call('/case/take', { id: opened.caseID })).status).toBe(200)
    const reply = { id: opened.caseID, localID: 'r1', messageType: 'text', text: { body: 'Let me lok' } }
    expect((await bea.call('/case/send_message', reply)).status).toBe(200)
    for (const p of [holder, viewer]) await p.goto(`${server.url}/console/cases/${opened.caseID}`)
    const ours = (p: Page, text: string) => p.locator('.bubble-row.ours', { hasText: text })
    const theirs = (p: Page) => p.locator('.bubble-row.visitor', { hasText: 'where is my order' })
    await ours(viewer, 'Let me lok').waitFor(WAIT)

    // Edit: Enter on Edit opens the form with the focus in it; Enter saves.
    await ours(holder, 'Let me lok').getByRole('button', { name: 'Edit' }).focus()
    await holder.keyboard.press('Enter')
    const field = holder.getByLabel('Edit your message')
    await expect.poll(() => field.evaluate((e) => e === e.ownerDocument.activeElement)).toBe(true)
    await expectNoAxeViolations(holder, 'editing a message')
    await field.fill('Let me look')
    await holder.keyboard.press('Enter')
    await ours(viewer, 'Let me look').getByText('edited').waitFor(WAIT)

    // React: React opens the quick reactions; one toggles the agent's reaction.
    await theirs(holder).getByRole('button', { name: 'React', exact: true }).focus()
    await holder.keyboard.press('Enter')
    await theirs(holder).getByRole('button', { name: 'React with 👍' }).focus()
    await expectNoAxeViolations(holder, 'picking a reaction')
    await holder.keyboard.press('Enter')
    await theirs(viewer).getByRole('list', { name: 'Reactions' }).getByText('👍 1').waitFor(WAIT)
    await theirs(holder).getByRole('button', { name: '👍 1', pressed: true }).waitFor(WAIT)

    // Pin: the case's pinned list shows it, on both consoles; Unpin takes it off.
    await theirs(holder).getByRole('button', { name: 'Pin' }).focus()
    await holder.keyboard.press('Enter')
    const pinned = (p: Page) => p.getByRole('region', { name: 'Pinned messages' })
    await pinned(viewer).getByRole('link', { name: 'where is my order' }).waitFor(WAIT)
    await pinned(holder).getByText('1 pinned message').waitFor(WAIT)
    await expectNoAxeViolations(holder, 'case with a pinned message')
    await expectNoAxeViolations(viewer, "the other console's case with a pinned message")
    const history = await roomHistory(shopper, opened.roomID)
    expect(history.find((m) => m.body === 'where is my order')).toMatchObject({ isPinned: true })
    await theirs(holder).getByRole('button', { name: 'Unpin' }).click()
    await pinned(viewer).waitFor({ state: 'detached', ...WAIT })
  }, 150_000)

  test('an admin sees the changes of a case assigned to another agent live, and acts in it', async () => {
    const cy = await signInAgent(server, org.organizationID, 'cy@acme.test')
    const shopper = await org.signIn('shopper-2')
    const opened = await openCase(shopper, 'my order is wrong')
    expect((await cy.call('/case/take', { id: opened.caseID })).status).toBe(200)
    const reply = { id: opened.caseID, localID: 'c1', messageType: 'text', text: { body: 'Let me lok' } }
    const replyID = (await cy.call('/case/send_message', reply)).json.data.message.messageID
    await page.goto(`${server.url}/console/cases/${opened.caseID}`)
    const ours = (text: string) => page.locator('.bubble-row.ours', { hasText: text })
    const theirs = page.locator('.bubble-row.visitor', { hasText: 'my order is wrong' })
    await ours('Let me lok').waitFor(WAIT)

    // The case's agent edits, reacts and pins: the admin's view follows without a reload.
    const visitorMessage = (await roomHistory(shopper, opened.roomID)).find(
      (m) => m.body === 'my order is wrong',
    )
    await cy.call('/case/message/edit', { id: opened.caseID, messageID: replyID, body: 'Let me look' })
    await ours('Let me look').getByText('edited').waitFor(WAIT)
    const reaction = { id: opened.caseID, messageID: visitorMessage.messageID, emoji: '👍' }
    await cy.call('/case/message/reaction/toggle', reaction)
    await theirs.getByRole('list', { name: 'Reactions' }).getByText('👍 1').waitFor(WAIT)
    await cy.call('/case/message/pin', { id: opened.caseID, messageIDs: [visitorMessage.messageID] })
    await page.getByRole('region', { name: 'Pinned messages' }).getByText('1 pinned message').waitFor(WAIT)

    // The admin reacts and replies there as its agent would.
    await theirs.getByRole('button', { name: 'React', exact: true }).click()
    await theirs.getByRole('button', { name: 'React with ✅' }).click()
    await theirs.getByRole('button', { name: '✅ 1', pressed: true }).waitFor(WAIT)
    await page.getByRole('textbox', { name: 'Reply', exact: true }).fill('I can help too')
    await page.keyboard.press('Enter')
    await ours('I can help too').waitFor(WAIT)
    await expectNoAxeViolations(page, "an admin in another agent's case")
    const history = await roomHistory(shopper, opened.roomID)
    expect(history.find((m) => m.body === 'I can help too')).toBeDefined()
  }, 150_000)
})
