import { existsSync } from 'node:fs'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { AGENT_PASSWORD } from '../support/agents.js'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { expectNoAxeViolations } from '../support/axe.js'
import { hasChromium, LAPTOP, launchBrowser, PHONE, screenshot } from '../support/browser.js'
import { openCase } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { dialects } from '../support/databases.js'
import { startEchoBot } from '../support/echo-bot.js'
import { operator } from '../support/fixtures.js'
import { freePort } from '../support/processes.js'
import { connect, type TestSocket } from '../support/sockets.js'
import { png, upload } from '../support/uploads.js'

// The console in a real browser, against a real Parley, a real echo bot and a real visitor
// socket: the whole support flow from the admin's first chatbot to a closed case.

if (!hasChromium)
  console.log('Console browser tests skipped: no Chromium at /usr/bin/chromium (apt-get install chromium).')

const WAIT = { timeout: 10_000 }
const REPLY_FOCUSED = 'document.activeElement === document.querySelector("textarea[aria-label=Reply]")'

for (const dialect of dialects) {
  describe.skipIf(!hasChromium).sequential(`console in a browser [${dialect}]`, () => {
    let server: TestServer
    let browser: Browser
    let laptop: BrowserContext
    let page: Page
    let org: Awaited<ReturnType<typeof createOrganization>>
    const stops: (() => unknown)[] = []
    // Filled in as the flow goes.
    const flow = { caseID: '', botPort: 0, earlierCaseID: '' }
    let visitorSocket: TestSocket
    let visitor: Awaited<ReturnType<typeof org.signIn>>
    /**
     * Waits until `expression` is true in the page. Evaluated from outside (as page.evaluate is), not
     * by waitForFunction, whose polling compiles the expression in the page: the CSP forbids that.
     */
    const until = (expression: string) => expect.poll(() => page.evaluate(expression), WAIT).toBe(true)
    /** The screenshots this run took: name → file. */
    const taken = new Map<string, string>()
    /** Every state shown in a screenshot is checked by axe too; `accessible` checks the others. */
    const shot = async (target: Page, name: string) => {
      await expectNoAxeViolations(target, name)
      taken.set(name, await screenshot(target, dialect, name))
    }
    const accessible = (state: string) => expectNoAxeViolations(page, state)
    /** The visitor writes in the case, as their app would. */
    const visitorSays = (body: string) =>
      visitor.call('/api/visitor/v1/client/case/send_message', {
        id: flow.caseID,
        localID: `said: ${body}`, // one message per text
        messageType: 'text',
        text: { body },
      })

    beforeAll(async () => {
      const port = await freePort()
      // The console shows webhook URLs under PUBLIC_URL, so it must be this server's address.
      server = await startServer(
        dialect,
        { PUBLIC_URL: `http://127.0.0.1:${port}` },
        { delivery: { autoStart: true, pollMs: 20 } },
      )
      org = await createOrganization(server)
      await server.app.services.agents.create(operator, org.organizationID, {
        email: 'ada@acme.test',
        fullName: 'Ada Admin',
        role: 'admin',
        password: AGENT_PASSWORD,
      })
      browser = await launchBrowser()
      laptop = await browser.newContext({ viewport: LAPTOP })
      page = await laptop.newPage()
      // "Close this case?" is answered yes.
      page.on('dialog', (dialog) => void dialog.accept())
    })
    afterAll(async () => {
      for (const stop of stops) await stop()
      await visitorSocket?.close()
      await browser?.close()
      if (server) await stopServer(server)
    })

    test('the admin signs in', async () => {
      await page.goto(`${server.url}/console/`)
      // Where an account comes from, and the command for the very first admin.
      await page.locator('.login-help code', { hasText: 'agent create --org <organizationID>' }).waitFor(WAIT)
      await page.getByLabel('E-mail').fill('ada@acme.test')
      await page.getByLabel('Password').fill(AGENT_PASSWORD)
      await shot(page, 'login')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.locator('[data-live="open"]').waitFor(WAIT)
      await expect(page.getByRole('tab', { name: /Queue/ }).getAttribute('aria-selected')).resolves.toBe(
        'true',
      )
      await page.getByText('No one is waiting').waitFor(WAIT)
      await accessible('empty inbox')
    })

    test('creates a chatbot and sees its secret key and webhook URL', async () => {
      flow.botPort = await freePort()
      await page.getByRole('link', { name: 'Chatbots' }).click()
      await page.getByLabel('Name').waitFor(WAIT)
      await accessible('chatbots')
      await page.getByLabel('Name').fill('Echo')
      await page.getByLabel('URL').fill(`http://127.0.0.1:${flow.botPort}/`)
      await page.getByRole('button', { name: /Create/ }).click()
      await page.waitForURL(/\/console\/settings\/chatbots\/\d+$/, WAIT)
      const chatbotID = page.url().split('/').at(-1) as string

      const secret = page.getByTestId('Secret key')
      await expect(secret.textContent()).resolves.not.toMatch(/whsec_/) // hidden until asked
      await page.getByRole('button', { name: 'Show' }).click()
      const secretKey = (await secret.textContent()) ?? ''
      const webhookURL = (await page.getByTestId('Webhook URL').textContent()) ?? ''
      await shot(page, 'chatbot-details')

      const stored = await server.app.services.chatbots.show(chatbotID)
      expect(secretKey).toMatch(/^whsec_/)
      expect(secretKey).toBe(stored.secretKey)
      expect(webhookURL).toBe(
        `${server.url}/api/visitor/v1/webhook/chatbot/custom/${org.organizationID}/${chatbotID}`,
      )
      // The bot runs on what the admin copied from the page.
      const bot = await startEchoBot({ port: flow.botPort, webhookURL, secretKey })
      stops.push(bot.stop)

      // The audit log names who did it.
      await page.getByRole('link', { name: 'Audit log' }).click()
      const entry = page.getByRole('row', { name: /chatbot\.create/ })
      await entry.waitFor(WAIT)
      await expect(entry.textContent()).resolves.toContain('Ada Admin')
      await accessible('audit log')
    })

    test('a case the bot hands over appears in the queue without a reload', async () => {
      await page.getByRole('link', { name: /Inbox/ }).click()
      await page.locator('[data-live="open"]').waitFor(WAIT)
      // A mark on this page load: a reload would wipe it.
      await page.evaluate('window.parleyTestMark = "same page"')

      visitor = await org.signIn('visitor-1')
      // An earlier case of the visitor, closed by them (the side panel lists it).
      const earlier = await openCase(visitor, 'Can I change my delivery address?')
      flow.earlierCaseID = earlier.caseID
      expect((await visitor.call('/api/visitor/v1/client/case/close', { id: earlier.caseID })).status).toBe(
        200,
      )
      visitorSocket = await connect(server.url, visitor.accessToken)
      const opened = await openCase(visitor, 'Where is my order #1042?')
      flow.caseID = opened.caseID
      await visitorSocket.waitUntil(
        (f) =>
          f.eventName === 'chat/sendMessage' &&
          f.data.user.userRole.code === 'chatbot' &&
          f.data.roomID === opened.roomID,
        WAIT.timeout,
      )
      // The visitor asks for the bot's menu and chooses its quick reply "Talk to agent".
      await visitorSays('menu')
      await visitorSocket.waitUntil(
        (f) => f.eventName === 'chat/sendMessage' && f.data.body === 'What would you like to do?',
        WAIT.timeout,
      )
      const choice = await visitor.call('/api/visitor/v1/client/case/send_message', {
        id: flow.caseID,
        localID: 'chose: agent',
        messageType: 'text',
        text: { body: 'Talk to agent' },
        interactive: { type: 'button_reply', button_reply: { id: '/agent', title: 'Talk to agent' } },
      })
      expect(choice.status).toBe(200)

      const row = page.locator(`[data-testid="list-queue"] [data-case-id="${opened.caseID}"]`)
      await row.waitFor(WAIT)
      // The row names the visitor and shows the last thing said: the visitor's choice (Parley's
      // note of the handover, alike in every row, is not what a row shows).
      await expect(row.locator('.case-visitor').textContent()).resolves.toBe('User visitor-1')
      await expect(row.getByTestId('last-message').textContent()).resolves.toBe('Visitor: Talk to agent')
      await expect(row.textContent()).resolves.toMatch(/waiting/)
      // Still the same page load: the row came over the socket.
      await expect(page.evaluate('window.parleyTestMark')).resolves.toBe('same page')
      await shot(page, 'inbox-queue')
    })

    test('the agent takes the case and replies; the visitor receives the reply', async () => {
      // Reached with the keyboard: j opens the first case of the queue, and the focus is on its row.
      await page.keyboard.press('j')
      await until(`document.activeElement.dataset.caseId === "${flow.caseID}"`)
      await page.getByRole('button', { name: /Take case/ }).waitFor(WAIT)
      // The chatbot's summary and the conversation so far are there, the chatbot under its name.
      const botBubble = page.locator('.bubble-row.ours', { hasText: 'You said: Where is my order #1042?' })
      await botBubble.waitFor(WAIT)
      await expect(botBubble.locator('.bubble-sender').textContent()).resolves.toBe('Echo')
      // The bot's quick replies are listed under its message; the visitor's choice is their text.
      const menu = page.locator('.bubble-row.ours', { hasText: 'What would you like to do?' })
      await expect(menu.locator('.quick-replies li').allTextContents()).resolves.toEqual([
        'Talk to agent',
        'Say hi',
      ])
      await page.locator('.bubble-row.visitor', { hasText: 'Talk to agent' }).waitFor(WAIT)
      await page.keyboard.press('t') // the keyboard shortcut for "Take case"
      await page.locator('[data-status="assigned"]').waitFor(WAIT)
      // Answering is what comes next: the reply box has the focus.
      await until(REPLY_FOCUSED)

      const reply = 'Hi, this is Ada. Your order ships today.'
      // The agent's startTyping is held back until the reply has reached the visitor: the stop
      // sent on Enter must still come after it (one request after another), never overtake it.
      let releaseStart = () => {}
      const startHeld = new Promise<void>((resolve) => {
        releaseStart = resolve
      })
      await page.route('**/case/typing', async (route) => {
        if (route.request().postDataJSON()?.typing === true) await startHeld
        await route.continue()
      })
      await page.keyboard.insertText(reply)
      await page.keyboard.press('Enter')
      const received = await visitorSocket.waitUntil(
        (f) => f.eventName === 'chat/sendMessage' && f.data.body === reply,
        WAIT.timeout,
      )
      releaseStart()
      await visitorSocket.waitUntil((f) => f.eventName === 'chat/stopTyping', WAIT.timeout)
      await page.unroute('**/case/typing')
      expect(received.data.user.userID).toMatch(/^agent:/)
      // While the agent typed, the visitor saw it, under the agent's name; the send stopped it.
      const typing = visitorSocket.frames.filter((f) => String(f.eventName).endsWith('Typing'))
      expect(typing.at(0)).toMatchObject({
        eventName: 'chat/startTyping',
        data: { user: { userID: received.data.user.userID, fullname: received.data.user.fullname } },
      })
      await page.locator('.bubble-row.ours', { hasText: reply }).waitFor(WAIT)
      // Once the send is answered, the box is empty for the next reply.
      await until('document.querySelector("textarea").value === ""')

      // The visitor types: the agent sees it under the conversation.
      visitorSocket.send({ eventName: 'chat/startTyping', data: { roomID: received.data.roomID } })
      await page.locator('[data-testid="visitor-typing"]', { hasText: 'is typing…' }).waitFor(WAIT)
      // The visitor's answer shows up in the open case by itself (and ends their typing), and the
      // open case marks it read: the visitor hears so.
      await visitorSays('Great, thank you!')
      await page.locator('.bubble-row.visitor', { hasText: 'Great, thank you!' }).waitFor(WAIT)
      await until('document.querySelector("[data-testid=visitor-typing]").textContent === ""')
      await visitorSocket.waitUntil(
        (f) => f.eventName === 'chat/updateMessage' && f.data.body === 'Great, thank you!' && f.data.isRead,
        WAIT.timeout,
      )
      await shot(page, 'case-reply')

      // The side panel: the visitor's profile from the ticket request, and their earlier case, which opens.
      const panel = page.getByTestId('visitor-panel')
      await expect(panel.locator('.visitor-name').textContent()).resolves.toBe('User visitor-1')
      const facts = await panel.locator('.visitor-facts').textContent()
      for (const fact of ['User IDvisitor-1', 'Platformweb', 'DeviceLinux']) expect(facts).toContain(fact)
      const earlier = panel.locator(`[data-case-id="${flow.earlierCaseID}"]`)
      await expect(earlier.textContent()).resolves.toMatch(/closed.*Can I change my delivery address\?/)
      await earlier.click()
      await page.locator('.case-view[data-status="closed"]').waitFor(WAIT)
      await page
        .locator('.bubble-row.visitor', { hasText: 'Can I change my delivery address?' })
        .waitFor(WAIT)
      await page.goBack()
      await page.locator('.case-view[data-status="assigned"]').waitFor(WAIT)
    })

    test('the admin saves a canned reply; in the case `/` inserts it filled in for the visitor', async () => {
      await page.getByRole('link', { name: 'Replies', exact: true }).click()
      const save = async (shortcut: string, title: string, text: string) => {
        await page.getByLabel('Shortcut', { exact: true }).fill(shortcut)
        await page.getByLabel('Title', { exact: true }).fill(title)
        await page.getByLabel('Text', { exact: true }).fill(text)
        await page.getByRole('button', { name: 'Create reply' }).click()
        await page.getByRole('cell', { name: `/${shortcut}`, exact: true }).waitFor(WAIT)
      }
      await save('check', 'Checking', 'Hi {visitor.firstName}, let me check that for you. {agent.name}')
      await save('old', 'Old answer', 'Not used any more')
      await save('cheers', 'Goodbye', 'Cheers, {visitor.name}!')
      await page.getByRole('button', { name: 'Edit /check' }).click()
      await page.getByLabel('Title', { exact: true }).fill('Looking into it')
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByRole('cell', { name: 'Looking into it' }).waitFor(WAIT)
      await page.getByRole('button', { name: 'Delete /old' }).click()
      await page.getByRole('cell', { name: '/old', exact: true }).waitFor({ state: 'detached', ...WAIT })
      await shot(page, 'canned-replies')

      await page.goBack()
      const box = page.getByLabel('Reply')
      const picker = page.getByRole('listbox', { name: 'Canned replies' })
      // The word after `/` matches titles too; Escape closes the list and leaves the text.
      await box.pressSequentially('/look')
      await picker.getByRole('option', { name: /check/ }).waitFor(WAIT)
      await box.press('Escape')
      await picker.waitFor({ state: 'detached', ...WAIT })
      await expect(box.inputValue()).resolves.toBe('/look')
      await box.fill('')
      await box.pressSequentially('Hello! /che')
      const options = picker.getByRole('option')
      await options.nth(1).waitFor(WAIT)
      const chosen = (shortcut: string) =>
        picker.locator('[aria-selected="true"]', { hasText: `/${shortcut} ` }).waitFor(WAIT)
      await expect(options.allTextContents()).resolves.toEqual([
        expect.stringMatching(/^\/check Looking into it/),
        expect.stringMatching(/^\/cheers Goodbye/),
      ])
      await chosen('check')
      await box.press('ArrowDown')
      await chosen('cheers')
      await box.press('ArrowUp')
      await chosen('check')
      await shot(page, 'canned-picker')
      await box.press('Enter')
      const filled = 'Hello! Hi User, let me check that for you. Ada Admin'
      await expect(box.inputValue()).resolves.toBe(filled)
      await expect(picker.count()).resolves.toBe(0)
      // The agent edits it before sending.
      await box.pressSequentially(' :)')
      await box.press('Enter')
      await visitorSocket.waitUntil(
        (f) => f.eventName === 'chat/sendMessage' && f.data.body === `${filled} :)`,
        WAIT.timeout,
      )
    })

    test('a message in a case that is not open is marked unread until opened', async () => {
      await page.getByRole('link', { name: /Inbox/ }).click()
      const row = page.locator(`[data-testid="list-mine"] [data-case-id="${flow.caseID}"]`)
      await row.waitFor(WAIT)
      await visitorSays('One more thing…')
      await row.locator('.count', { hasText: '1' }).waitFor(WAIT)
      // The row's last message follows live: the visitor's, just now.
      await row.getByTestId('last-message').filter({ hasText: 'Visitor: One more thing…' }).waitFor(WAIT)
      await expect(row.locator('.case-row-when').textContent()).resolves.toBe('now')
      await expect(page.title()).resolves.toBe('(1) Parley console')
      await row.click()
      await page.locator('.bubble-row.visitor', { hasText: 'One more thing…' }).waitFor(WAIT)
      await expect(row.locator('.count').count()).resolves.toBe(0)
      await expect(page.title()).resolves.toBe('Parley console')
    })

    test('with desktop notifications on, a visitor message while the tab is hidden chimes and notifies; the notification opens the case', async () => {
      await laptop.grantPermissions(['notifications'], { origin: server.url })
      // Record what the page asks of the browser: its notifications, its chime's tones; and let
      // the test say when the tab is hidden (a headless tab never is).
      // (Browser code as text: the tests are compiled without the DOM's types.)
      await page.evaluate(`
        window.shown = []
        window.tones = 0
        window.hidden = false
        window.Notification = class extends Notification {
          constructor(title, options) {
            super(title, options)
            window.shown.push(this)
          }
        }
        const start = OscillatorNode.prototype.start
        OscillatorNode.prototype.start = function (...args) {
          window.tones++
          return start.apply(this, args)
        }
        Object.defineProperty(document, 'hidden', { get: () => window.hidden })
      `)
      const settings = page.getByRole('group', { name: 'Notify me' })
      await expect(settings.getByLabel('Sound').isChecked()).resolves.toBe(true)
      // Checked once the server has it.
      await settings.getByLabel('Desktop').click()
      await page.locator('.notify-settings input[name="desktop"]:checked').waitFor(WAIT)
      await page.getByRole('link', { name: /Inbox/ }).click()

      await page.evaluate('window.hidden = true')
      await visitorSays('Are you still there?')
      await until('window.shown.length === 1')
      const notification = await page.evaluate(
        '({ title: window.shown[0].title, body: window.shown[0].body, tag: window.shown[0].tag })',
      )
      expect(notification).toEqual({
        title: 'User visitor-1',
        body: 'Are you still there?',
        tag: flow.caseID,
      })
      await expect(page.evaluate('window.tones')).resolves.toBe(2)
      // Clicking it brings the console forward at the case.
      await page.evaluate("window.hidden = false; window.shown[0].onclick(new Event('click'))")
      await page.locator(`.case-view[data-case-id="${flow.caseID}"]`).waitFor(WAIT)
      await page.locator('.bubble-row.visitor', { hasText: 'Are you still there?' }).waitFor(WAIT)
      // The choice is the agent's, kept on the server.
      const cookie = (await laptop.cookies()).map(({ name, value }) => `${name}=${value}`).join('; ')
      const session = (await server.post('/api/agent/v1/auth/get_session', {}, { cookie })).json
      expect(session.data.agentAccount.notifications).toEqual({ sound: true, desktop: true })
    })

    test('an image the agent attaches shows as its thumbnail; a PDF the visitor sends as a download with name and size', async () => {
      const image = await png(640, 480)
      await page
        .getByTestId('attach-input')
        .setInputFiles({ name: 'map.png', mimeType: 'image/png', buffer: image })
      const thumbnail = page.locator('.bubble-row.ours .attachment-image img[alt="map.png"]')
      await thumbnail.waitFor(WAIT)
      // Loaded from Parley's own origin, as the console's CSP requires, at thumbnail size.
      await until('document.querySelector(".attachment-image img[alt=\'map.png\']").naturalWidth === 320')
      const sent = await visitorSocket.waitUntil(
        (f) => f.eventName === 'chat/sendMessage' && f.data.data?.fileName === 'map.png',
        WAIT.timeout,
      )
      expect(sent.data).toMatchObject({
        type: 1002,
        data: { mediaType: 'image/png', width: 640, height: 480 },
      })

      const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\n%%EOF\n')
      const { file } = (
        await upload(server, '/api/visitor/v1/client/file/upload', pdf, {
          fileName: 'invoice.pdf',
          headers: { authorization: `Bearer ${visitor.accessToken}` },
        })
      ).json.data
      await visitor.call('/api/visitor/v1/client/case/send_message', {
        id: flow.caseID,
        localID: 'invoice',
        messageType: 'file',
        file: { fileID: file.fileID, caption: 'my invoice' },
      })
      const download = page.locator('.bubble-row.visitor .attachment-file', { hasText: 'invoice.pdf' })
      await download.waitFor(WAIT)
      await expect(download.locator('.attachment-size').textContent()).resolves.toBe(`${pdf.length} B`)
      await shot(page, 'case-attachments')
    })

    test("a case passed to a topic nobody works stays in the admin's queue, and moves on from there", async () => {
      await server.app.services.topics.create(operator, org.organizationID, 'Returns')
      await page.getByRole('button', { name: 'Transfer…' }).press('Enter')
      const transfer = page.getByRole('dialog', { name: 'Transfer this case' })
      await transfer.getByLabel(/Returns/).check()
      await transfer.getByText('No agent of Returns is online').waitFor(WAIT)
      await shot(page, 'transfer-warning')
      await transfer.getByRole('button', { name: 'Move' }).press('Enter')
      await transfer.waitFor({ state: 'hidden', ...WAIT })
      // The Transfer button went with the reply box: the focus goes on to Take case.
      await until('document.activeElement.textContent.startsWith("Take case")')
      const queued = page.locator(`[data-testid="list-queue"] [data-case-id="${flow.caseID}"]`)
      await queued.waitFor(WAIT)
      await expect(queued.textContent()).resolves.toContain('Returns')

      // Waiting in Returns, it moves on to General, where the admin takes it back.
      await page.getByRole('button', { name: 'Assign or move…' }).click()
      const move = page.getByRole('dialog', { name: 'Assign or move this case' })
      await expect(move.getByLabel(/Returns/).count()).resolves.toBe(0) // where it waits already
      await move.getByLabel(/General/).check()
      await move.getByRole('button', { name: 'Move' }).click()
      await page.locator('.case-header .chip', { hasText: 'General' }).waitFor(WAIT)
      await page.getByRole('button', { name: /Take case/ }).press('Enter')
      await page.locator('[data-status="assigned"]').waitFor(WAIT)
      await until(REPLY_FOCUSED)
    })

    test('an internal note with an @mention shows as a note, reaches the colleague, never the visitor', async () => {
      const email = 'grace@acme.test'
      const grace = await server.app.services.agents.create(operator, org.organizationID, {
        email,
        fullName: 'Grace Helper',
        role: 'agent',
        password: AGENT_PASSWORD,
      })
      const graceToken = (await server.post('/api/agent/v1/auth/login', { email, password: AGENT_PASSWORD }))
        .json.data.token
      const graceSocket = await connect(server.url, graceToken)
      const visitorFrames = visitorSocket.frames.length
      // The note tab, the @ picker (arrow keys and Enter), and Enter saves.
      await page.getByRole('tab', { name: 'Internal note' }).click()
      const box = page.getByLabel('Internal note text')
      await box.fill('Refund approved, ')
      await box.pressSequentially('@gra')
      const picker = page.getByRole('listbox', { name: 'Mention a colleague' })
      await picker.getByRole('option', { name: 'Grace Helper' }).waitFor(WAIT)
      await box.press('ArrowDown')
      await box.press('Enter')
      await box.pressSequentially('please double-check.')
      await box.press('Enter')
      const note = page.locator('.note-row', { hasText: 'Refund approved' })
      await note.waitFor(WAIT)
      await expect(note.textContent()).resolves.toContain('Only agents see this')
      await expect(note.locator('.mention').textContent()).resolves.toBe('@Grace Helper')
      const told = await graceSocket.waitUntil((f) => f.eventName === 'agent/mention', WAIT.timeout)
      expect(told.data.note.text).toBe(
        `Refund approved, @[Grace Helper](${grace.agentAccountID}) please double-check.`,
      )
      // Grace answers with a plain @ada: Ada's open case shows it, her sidebar counts it, and the
      // list of mentions opens the case (and reads it).
      const answer = await server.post(
        '/api/agent/v1/case/add_note',
        { id: flow.caseID, localID: 'grace-1', text: 'Done, @ada.' },
        { authorization: `Bearer ${graceToken}` },
      )
      expect(answer.status).toBe(200)
      await page.locator('.note-row', { hasText: 'Done, @ada.' }).waitFor(WAIT)
      await page.getByTestId('mentions-unread').filter({ hasText: '1' }).waitFor(WAIT)
      await shot(page, 'case-note')
      await page.getByRole('button', { name: /Mentions/ }).click()
      await page.getByRole('link', { name: /Done, @ada/ }).click()
      await page.getByTestId('mentions-unread').waitFor({ state: 'detached', ...WAIT })
      // The visitor's socket heard nothing of either note.
      expect(JSON.stringify(visitorSocket.frames.slice(visitorFrames))).not.toMatch(
        /Refund approved|Done, @ada/,
      )
      await page.getByRole('tab', { name: 'Reply' }).click()
      await graceSocket.close()
    })

    test('the agent closes the case; the visitor sees case/update closed', async () => {
      // Transfer offers the topics' queues (and colleagues); Escape leaves it.
      await page.getByRole('button', { name: 'Transfer…' }).click()
      const transfer = page.getByRole('dialog', { name: 'Transfer this case' })
      await transfer.getByLabel('General').waitFor(WAIT)
      await page.keyboard.press('Escape')
      await transfer.waitFor({ state: 'hidden', ...WAIT })

      await page.getByRole('button', { name: 'Close case' }).press('Enter')
      const update = await visitorSocket.waitUntil(
        (f) => f.eventName === 'case/update' && f.data.status === 'closed',
        WAIT.timeout,
      )
      expect(update.data).toMatchObject({ caseID: flow.caseID, closedBy: 'agent', isClosed: true })
      await page.locator('[data-status="closed"]').waitFor(WAIT)
      await page.getByText('The visitor has not rated this case.').waitFor(WAIT)
      // The Close button is gone: the focus is on the notice that the case is closed.
      await until('document.activeElement.textContent === "This case is closed."')

      // The visitor rates the case: the open case view shows it at once.
      const rated = await visitor.call('/api/visitor/v1/client/case/rate', {
        id: flow.caseID,
        rating: 4,
        note: 'Quick answer, thanks!',
      })
      expect(rated.status).toBe(200)
      const rating = page.getByTestId('case-rating')
      await rating.waitFor(WAIT)
      await expect(rating.textContent()).resolves.toContain('Rated 4/5 by the visitor')
      await expect(rating.getByRole('img', { name: '4 out of 5 stars' }).count()).resolves.toBe(1)
      await expect(rating.locator('.rating-note').textContent()).resolves.toBe('Quick answer, thanks!')
      // The footer grew with the rating: the conversation still shows its last line whole.
      await until(`(() => {
        const box = document.querySelector('[data-testid="transcript"]').getBoundingClientRect()
        const last = [...document.querySelectorAll('[data-testid="transcript"] .system-line')].at(-1).getBoundingClientRect()
        return last.top >= box.top && last.bottom <= box.bottom
      })()`)
      await page.getByRole('tab', { name: /Closed/ }).click()
      const closedRow = page.locator(`[data-testid="list-closed"] [data-case-id="${flow.caseID}"]`)
      await closedRow.waitFor(WAIT)
      // Closed rows preview the last thing said, not Parley's "closed by" note.
      await expect(closedRow.getByTestId('last-message').textContent()).resolves.not.toMatch(/^Parley:/)
      await shot(page, 'case-closed')
    })

    test('searching finds the case by words said, with the message holding them, and opens it', async () => {
      await page.getByLabel('Search cases').fill('ships TODAY')
      await page.getByLabel('Search cases').press('Enter')
      const hit = page.locator(`[data-testid="list-search"] [data-case-id="${flow.caseID}"]`)
      await hit.waitFor(WAIT)
      await expect(hit.locator('.snippet').textContent()).resolves.toContain('Your order ships today.')
      await page.getByLabel('Status', { exact: true }).selectOption('closed')
      await page.waitForURL(/status=closed/, WAIT)
      await hit.waitFor(WAIT)
      await shot(page, 'search')
      // The search bar stays low: the search box, one row of filters, one of the dates.
      const bar = (await page.locator('.case-search').boundingBox()) as { height: number }
      expect(bar.height).toBeLessThanOrEqual(125)
      await hit.click()
      await page.locator('.bubble-row.ours', { hasText: 'Your order ships today.' }).waitFor(WAIT)
      await page.getByRole('button', { name: 'Clear' }).click()
      await page.getByRole('tab', { name: /Closed/ }).waitFor(WAIT)
    })

    test('the agent tags the case, filters the inbox by the tag, and reopens the closed case', async () => {
      // The case is open (closed) in the page: Enter adds a tag, which the list row shows too.
      await page.getByLabel('Add a tag').fill('Refund')
      await page.getByLabel('Add a tag').press('Enter')
      await page.getByRole('button', { name: 'Remove tag refund' }).waitFor(WAIT)
      const row = page.locator(`[data-testid="list-closed"] [data-case-id="${flow.caseID}"]`)
      await row.getByTestId('row-tags').getByText('refund').waitFor(WAIT)
      await shot(page, 'case-tags')
      await page.getByLabel('Tag', { exact: true }).selectOption('refund')
      await page.waitForURL(/tag=refund/, WAIT)
      await page.locator(`[data-testid="list-search"] [data-case-id="${flow.caseID}"]`).waitFor(WAIT)
      await page.getByRole('button', { name: 'Clear' }).click()

      // Reopened, the case is the agent's again and the visitor hears of it; then closed again.
      await page.getByRole('button', { name: 'Reopen' }).click()
      const reopened = await visitorSocket.waitUntil(
        (f) => f.eventName === 'case/update' && f.data.caseID === flow.caseID && f.data.status === 'assigned',
        WAIT.timeout,
      )
      expect(reopened.data).not.toHaveProperty('tags')
      await page.locator('.case-view[data-status="assigned"]').waitFor(WAIT)
      await page.locator('.system-line', { hasText: 'The case was reopened' }).waitFor(WAIT)
      await page.getByRole('button', { name: 'Close case' }).click()
      await page.locator('.case-view[data-status="closed"]').waitFor(WAIT)
      await page.getByRole('tab', { name: /Closed/ }).click()
      await row.waitFor(WAIT)
    })

    test("the reports page charts and tables the flow's cases, within the console's CSP", async () => {
      const violations: string[] = []
      const watch = (message: { text(): string }) => {
        if (/Content.Security.Policy|Refused to/i.test(message.text())) violations.push(message.text())
      }
      page.on('console', watch)
      await page.getByRole('link', { name: 'Reports' }).click()
      await page.getByRole('heading', { name: 'Reports' }).waitFor(WAIT)
      // The charts draw on canvases; the same figures are in a table, by day (the last 30 days).
      await page.locator('.report-chart canvas').first().waitFor(WAIT)
      await expect(page.locator('.report-chart canvas').count()).resolves.toBe(2)
      const table = page.getByRole('table')
      await table.locator('caption').getByText('Figures by day').waitFor(WAIT)
      // The flow's cases were all opened at the server's clock's time: their day in the browser's zone.
      const timeZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)
      const today = new Intl.DateTimeFormat('en-CA', { timeZone }).format(server.clock.now())
      const cells = await table
        .getByRole('row', { name: new RegExp(`^${today}`) })
        .getByRole('cell')
        .allTextContents()
      const expected = await server.app.services.reports.report(
        { agentAccountID: '', organizationID: org.organizationID, role: 'admin' },
        { from: today, to: today, timeZone, by: 'day' },
      )
      const [todays] = expected.rows
      // The flow opened, answered and closed cases today; the visitor rated one 4.
      expect(todays?.opened).toBeGreaterThanOrEqual(2)
      expect(todays?.closed).toBeGreaterThanOrEqual(1)
      expect(cells.slice(0, 3)).toEqual(
        [todays?.opened, todays?.handedOver, todays?.firstResponses].map(String),
      )
      expect(cells[4]).toBe(String(todays?.closed))
      await page.getByText('4.0 ★').waitFor(WAIT)
      // The flow's times are seconds long: the chart of median times is in seconds, not 0.0 minutes.
      await page.getByRole('img', { name: /times by day, in seconds$/ }).waitFor(WAIT)
      await shot(page, 'reports')
      // Grouped by agent: Ada's row.
      await page.getByLabel('Group by').selectOption('agent')
      await table.locator('caption').getByText('Figures by agent').waitFor(WAIT)
      await table.getByRole('row', { name: /^Ada Admin/ }).waitFor(WAIT)
      page.off('console', watch)
      expect(violations).toEqual([])
      await page.getByRole('link', { name: 'Inbox' }).click()
    })

    test('the status selector shows its whole choice', async () => {
      const status = page.getByLabel('Your status')
      await status.selectOption('online')
      await page.locator('.me .dot-online').waitFor(WAIT)
      await expectWholeChoice(page)
      await shot(page, 'status-online')
      await status.selectOption('offline')
      await page.locator('.me .dot-offline').waitFor(WAIT)
    })

    test('works in a phone-sized window', async () => {
      const phone = await browser.newContext({ viewport: PHONE, storageState: await laptop.storageState() })
      const small = await phone.newPage()
      try {
        await small.goto(`${server.url}/console/?tab=closed`)
        const row = small.locator(`[data-case-id="${flow.caseID}"]`)
        await row.waitFor(WAIT)
        await expectNoSidewaysScroll(small)
        await shot(small, 'phone-inbox')

        // A case takes the whole screen, with a way back to the list.
        await row.click()
        await small.locator('[data-status="closed"]').waitFor(WAIT)
        await expect(small.locator('.case-list-pane').isVisible()).resolves.toBe(false)
        await expectNoSidewaysScroll(small)
        await expectWholeChoice(small)
        // The conversation has most of the screen: the headers above it are compact, and the
        // chatbot's summary is part of it (scrolls away, folds up) rather than a banner over it.
        const transcript = (await small.getByTestId('transcript').boundingBox()) as { y: number }
        expect(transcript.y).toBeLessThanOrEqual(PHONE.height * 0.25)
        const header = (await small.locator('.case-header').boundingBox()) as { height: number }
        expect(header.height).toBeLessThanOrEqual(60) // one line of facts under the visitor's name
        const summary = small.getByTestId('transcript').locator('details.summary')
        await expect(summary.getAttribute('open')).resolves.not.toBeNull()
        await summary.locator('summary').click()
        await expect(summary.getAttribute('open')).resolves.toBeNull()
        await shot(small, 'phone-case')
        await small.getByRole('link', { name: 'Back to cases' }).click()
        await row.waitFor(WAIT)

        await small.goto(`${server.url}/console/settings/chatbots`)
        await small.getByRole('link', { name: 'Echo' }).waitFor(WAIT)
        await expectNoSidewaysScroll(small)
        // Every settings link is in sight: they wrap instead of scrolling out of the screen.
        for (const link of await small.locator('.nav-link').all()) {
          const box = (await link.boundingBox()) as { x: number; width: number }
          expect(box.x + box.width, (await link.textContent()) ?? '').toBeLessThanOrEqual(PHONE.width)
        }
        await shot(small, 'phone-chatbots')
      } finally {
        await phone.close()
      }
    })

    test('an admin sets a temporary password and deactivates an agent from the settings page', async () => {
      const email = 'bo@acme.test'
      await server.app.services.agents.create(operator, org.organizationID, {
        email,
        fullName: 'Bo Leaving',
        role: 'agent',
        password: AGENT_PASSWORD,
      })
      const login = (password: string) => server.post('/api/agent/v1/auth/login', { email, password })
      const bo = await connect(server.url, (await login(AGENT_PASSWORD)).json.data.token)
      await page.getByRole('link', { name: 'Agents' }).click()
      const row = page.getByRole('row', { name: /Bo Leaving/ })
      await row.waitFor(WAIT)

      await accessible('agents')
      // A number of a few digits has a box to match; the row's buttons do not touch.
      const maxCases = (await page.getByLabel('Max concurrent cases').first().boundingBox()) as {
        width: number
      }
      expect(maxCases.width).toBeLessThanOrEqual(200)
      const edit = (await row.getByRole('button', { name: 'Edit' }).boundingBox()) as {
        x: number
        width: number
      }
      const password = (await row.getByRole('button', { name: 'Password…' }).boundingBox()) as { x: number }
      expect(password.x - (edit.x + edit.width)).toBeGreaterThanOrEqual(4)
      await row.getByRole('button', { name: 'Password…' }).click()
      const dialog = page.getByRole('dialog', { name: 'Set a password for Bo Leaving' })
      await dialog.getByLabel('Temporary password').fill('temporary passphrase')
      await accessible('agents: set a password')
      await dialog.getByRole('button', { name: 'Set password' }).click()
      await dialog.waitFor({ state: 'hidden', ...WAIT })
      expect((await bo.closed).code).toBe(4001)
      expect((await login(AGENT_PASSWORD)).status).toBe(401)
      const again = await connect(server.url, (await login('temporary passphrase')).json.data.token)

      await row.getByRole('button', { name: 'Deactivate' }).click()
      const confirm = page.getByRole('dialog', { name: 'Deactivate Bo Leaving' })
      await confirm.getByRole('button', { name: 'Deactivate' }).click()
      await row.getByRole('button', { name: 'Reactivate' }).waitFor(WAIT)
      await expect(row.textContent()).resolves.toContain('deactivated')
      expect((await again.closed).code).toBe(4001)
      expect((await login('temporary passphrase')).status).toBe(401)
      await shot(page, 'agents-deactivated')

      await page.getByRole('link', { name: 'Audit log' }).click()
      const entry = page.getByRole('row', { name: /agent\.deactivate/ })
      await entry.waitFor(WAIT)
      await expect(entry.textContent()).resolves.toContain('Ada Admin')
    })

    test('creates an app key (its App ID and secret shown once) that authenticates, and revokes it', async () => {
      await page.getByRole('link', { name: 'App keys' }).click()
      await page.getByRole('button', { name: 'Create app key' }).click()
      const appKey = (await page.getByTestId('App-Key header').textContent()) ?? ''
      const appID = (await page.getByTestId('App ID').textContent()) ?? ''
      const appSecret = (await page.getByTestId('App secret').textContent()) ?? ''
      await accessible('app keys')
      expect(appKey).toBe(Buffer.from(`${appID}:${appSecret}`).toString('base64'))
      const { appKeys } = server.app.services
      await expect(appKeys.authenticate(appKey, org.organizationID)).resolves.toEqual({
        appKeyID: appID,
        organizationID: org.organizationID,
      })
      await page.getByRole('button', { name: 'Revoke' }).click()
      await page.locator('.chip', { hasText: /^revoked/ }).waitFor(WAIT)
      await expect(page.getByTestId('App secret').count()).resolves.toBe(0)
      await expect(appKeys.authenticate(appKey)).rejects.toMatchObject({ reason: 'revoked' })

      // Server keys, on the same page component, show their header once too.
      await page.getByRole('link', { name: 'Server keys' }).click()
      await page.getByRole('button', { name: 'Create server key' }).click()
      const serverKey = (await page.getByTestId('Server-Key header').textContent()) ?? ''
      await accessible('server keys')
      await expect(server.app.services.serverKeys.authenticate(serverKey)).resolves.toMatchObject({
        organizationID: org.organizationID,
      })
    })

    test('signing out ends the session and shows the sign-in form', async () => {
      const cookies = await laptop.cookies()
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByRole('button', { name: 'Sign in' }).waitFor(WAIT)
      await accessible('signed out')
      const cookie = cookies.map(({ name, value }) => `${name}=${value}`).join('; ')
      const session = await server.post('/api/agent/v1/auth/get_session', {}, { cookie })
      expect(session.json.error.code).toBe('40103')
    })

    test('screenshots of this run are kept as test artifacts', () => {
      const names = [
        'login',
        'chatbot-details',
        'inbox-queue',
        'case-reply',
        'transfer-warning',
        'case-closed',
        'case-note',
        'canned-picker',
        'case-attachments',
        'search',
        'case-tags',
        'reports',
        'phone-inbox',
        'phone-case',
      ]
      for (const name of names) {
        const path = taken.get(name)
        expect(path, name).toBeDefined()
        expect(existsSync(path as string), name).toBe(true)
      }
    })
  })
}

/**
 * The status selector shows the whole text of its choice. A select cuts its text off without
 * overflowing, so the text is measured in the select's font against the room it has.
 */
async function expectWholeChoice(page: Page) {
  const { text, width, room } = (await page.evaluate(`(() => {
    const select = document.querySelector('select[aria-label="Your status"]')
    const style = getComputedStyle(select)
    const context = document.createElement('canvas').getContext('2d')
    context.font = style.font
    const text = select.options[select.selectedIndex].text
    const arrow = 20 // Chromium's drop-down arrow
    const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - arrow
    return { text, width: context.measureText(text).width, room }
  })()`)) as { text: string; width: number; room: number }
  expect(width, text).toBeLessThanOrEqual(room)
}

/** The page fits the window's width: nothing is cut off or needs scrolling sideways. */
async function expectNoSidewaysScroll(page: Page) {
  const [scrollWidth, innerWidth] = (await page.evaluate(
    '[document.documentElement.scrollWidth, window.innerWidth]',
  )) as [number, number]
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth)
}
