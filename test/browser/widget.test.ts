import type { Browser, BrowserContext, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CLOSED_CASE_SHOWN_MS } from '../../packages/widget/src/closed-case.js'
import { en as texts } from '../../packages/widget/src/languages/en.js'
import { signInAgent } from '../support/agents.js'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { expectNoAxeViolations } from '../support/axe.js'
import { hasChromium, LAPTOP, launchBrowser, PHONE, screenshot } from '../support/browser.js'
import { createOrganization } from '../support/clients.js'
import { dialects } from '../support/databases.js'
import { startEchoBot } from '../support/echo-bot.js'
import { operator } from '../support/fixtures.js'
import { freePort } from '../support/processes.js'
import { connect } from '../support/sockets.js'
import { upload } from '../support/uploads.js'
import { startWebShop } from '../support/web-shop.js'

// The support widget as a customer ships it: the example web shop (its own process and origin)
// logs a user in, mints tickets with its Server-Key and embeds Parley's /widget.js; the real echo
// bot answers; an agent replies and closes through the agent API. One flow, step by step.

const WAIT = { timeout: 10_000 }

for (const dialect of dialects) {
  describe.skipIf(!hasChromium).sequential(`support widget in a browser [${dialect}]`, () => {
    let server: TestServer
    let browser: Browser
    let context: BrowserContext
    let page: Page
    let shopURL: string
    let agent: Awaited<ReturnType<typeof signInAgent>>
    const stops: (() => unknown)[] = []
    const flow = { caseID: '' }
    /** The page's console: a Content-Security-Policy violation would show here. */
    const consoleLines: string[] = []
    /** Every state shown in a screenshot is checked by axe too. */
    const shot = async (target: Page, name: string) => {
      await expectNoAxeViolations(target, `widget: ${name}`)
      return screenshot(target, `widget-${dialect}`, name)
    }
    const widget = () => page.locator('parley-widget')
    const bubbles = () => widget().locator('.msg')
    /** The name of what has the keyboard focus in the widget (null: nothing there). */
    const focused = (target: Page = page) =>
      target.evaluate(`(() => {
        const active = document.querySelector('parley-widget').shadowRoot.activeElement
        return active && (active.getAttribute('aria-label') || active.textContent)
      })()`)
    const say = async (text: string) => {
      await page.getByRole('textbox', { name: 'Message' }).fill(text)
      await page.getByRole('button', { name: 'Send' }).click()
    }

    beforeAll(async () => {
      const port = await freePort()
      server = await startServer(
        dialect,
        // Three uploads a minute, so that the flow's uploads reach the rate (see its test).
        { PUBLIC_URL: `http://127.0.0.1:${port}`, UPLOAD_RATE_PER_MINUTE: '3' },
        { delivery: { autoStart: true, pollMs: 20 } },
      )
      const org = await createOrganization(server, 'Shop')
      const botPort = await freePort()
      const bot = await server.app.services.chatbots.create(operator, org.organizationID, {
        name: 'Echo',
        url: `http://127.0.0.1:${botPort}/`,
      })
      const { secretKey, webhookURL } = await server.app.services.chatbots.show(bot.chatbotID)
      stops.push((await startEchoBot({ port: botPort, webhookURL, secretKey })).stop)
      agent = await signInAgent(server, org.organizationID, 'ada@shop.test')
      const shop = await startWebShop({
        port: await freePort(),
        parleyURL: server.url,
        serverKey: org.serverKey,
      })
      shopURL = shop.url
      stops.push(shop.stop)
      browser = await launchBrowser()
      context = await browser.newContext({ viewport: LAPTOP })
      page = await context.newPage()
      page.on('console', (message) => consoleLines.push(message.text()))
    })
    afterAll(async () => {
      for (const stop of stops) await stop()
      await browser?.close()
      if (server) await stopServer(server)
    })

    test('the shop logs the user in and shows the launcher; the widget opens', async () => {
      await page.goto(shopURL)
      await page.getByLabel('Name').fill('Grace Hopper')
      await page.getByRole('button', { name: /Log in/i }).click()
      await page.getByRole('button', { name: 'Open chat' }).waitFor(WAIT)
      await expectNoAxeViolations(page, 'widget: closed, the launcher')
      // With the keyboard: Enter opens it into the message box, Escape closes it back to the launcher.
      await page.getByRole('button', { name: 'Open chat' }).press('Enter')
      await page.getByRole('textbox', { name: 'Message' }).waitFor(WAIT)
      await expect.poll(() => focused(), WAIT).toBe('Message')
      await page.keyboard.press('Escape')
      await expect.poll(() => focused(), WAIT).toBe('Open chat')
      await page.keyboard.press('Enter')
      await expect.poll(() => focused(), WAIT).toBe('Message')
      // Both hide the panel, each under a name of its own: the launcher, and the panel's ×.
      await expect(page.getByRole('button', { name: 'Hide chat' }).count()).resolves.toBe(1)
      await expect(page.getByRole('button', { name: 'Close chat' }).count()).resolves.toBe(1)
      // One global, the entry point.
      expect(await page.evaluate('typeof window.ParleyWidget.mount')).toBe('function')
      await shot(page, 'open')
    })

    test('the visitor writes; the chatbot answers under its name', async () => {
      // Sent with Enter, from the message box.
      await page.keyboard.insertText('Where is my parcel?')
      await page.keyboard.press('Enter')
      const echo = bubbles().filter({ hasText: 'You said: Where is my parcel?' })
      await echo.waitFor(WAIT)
      await expect(echo.locator('.who').textContent()).resolves.toBe('Echo')
      const [open] = (await server.app.database.db.selectFrom('cases').select('id').execute()) as [
        { id: string },
      ]
      flow.caseID = open.id
    })

    test("the chatbot's quick replies are buttons; choosing one answers it", async () => {
      await say('menu')
      const talk = widget().getByRole('button', { name: 'Talk to agent' })
      await talk.waitFor(WAIT)
      // Chosen with the keyboard: the choices close, and the focus goes on to the message box.
      await widget().getByRole('button', { name: 'Say hi' }).press('Enter')
      await bubbles().filter({ hasText: 'Hi there!' }).waitFor(WAIT)
      await expect.poll(() => focused(), WAIT).toBe('Message')
      await shot(page, 'quick-replies')
    })

    test('"Talk to agent" hands over; the agent takes the case and replies live, under their name', async () => {
      await say('menu')
      const offers = widget().getByRole('button', { name: 'Talk to agent' })
      await expect.poll(() => offers.count(), WAIT).toBe(2)
      await offers.last().click()
      await expect
        .poll(
          async () => (await agent.call('/case/get_by_id', { id: flow.caseID })).json.data.case.status,
          WAIT,
        )
        .toBe('queued')
      expect((await agent.call('/case/take', { id: flow.caseID })).status).toBe(200)
      await agent.call('/case/send_message', {
        id: flow.caseID,
        localID: 'ada-1',
        messageType: 'text',
        text: { body: 'Hi, Ada here. It ships today.' },
      })
      const reply = bubbles().filter({ hasText: 'Hi, Ada here. It ships today.' })
      await reply.waitFor(WAIT)
      await expect(reply.locator('.who').textContent()).resolves.toBe('ada@shop.test')
      await shot(page, 'agent-reply')
    })

    test("typing shows both ways; the agent reading the case marks the visitor's messages read", async () => {
      const agentSocket = await connect(server.url, agent.token)
      await page.getByRole('textbox', { name: 'Message' }).pressSequentially('Is it')
      const [typing] = await agentSocket.waitFor('chat/startTyping', 1, WAIT.timeout)
      expect(typing.data.user.fullname).toBe('Grace Hopper')
      await agentSocket.close()
      await page.getByRole('textbox', { name: 'Message' }).fill('')

      expect((await agent.call('/case/typing', { id: flow.caseID, typing: true })).status).toBe(200)
      await widget().getByText('ada@shop.test is typing…').waitFor(WAIT)
      await agent.call('/case/typing', { id: flow.caseID, typing: false })
      await expect.poll(() => widget().getByText('is typing…').count(), WAIT).toBe(0)

      expect((await agent.call('/case/mark_read', { id: flow.caseID })).status).toBe(200)
      const mine = widget().locator('.msg.mine').last()
      await mine.locator('.state', { hasText: 'Read' }).waitFor(WAIT)
    })

    test('the visitor attaches an image: progress, then its thumbnail from Parley; the agent gets the file', async () => {
      // Noise, so that it is some 300 KB; uploads throttled, so that the progress has steps to show.
      const bytes = await sharp({
        create: {
          width: 400,
          height: 300,
          channels: 3,
          background: '#888',
          noise: { type: 'gaussian', sigma: 60 },
        },
      })
        .png()
        .toBuffer()
      const cdp = await context.newCDPSession(page)
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: bytes.length, // a second
      })
      // Every state the upload's row says, as it says it.
      await page.evaluate(`(() => {
        const root = document.querySelector('parley-widget').shadowRoot
        const seen = (window.uploadStates = [])
        new MutationObserver(() => {
          const state = root.querySelector('.msg:last-child .state')?.textContent
          if (state && seen.at(-1) !== state) seen.push(state)
        }).observe(root, { subtree: true, childList: true, characterData: true })
      })()`)
      const [chooser] = await Promise.all([
        page.waitForEvent('filechooser'),
        page.getByRole('button', { name: 'Attach a file' }).click(),
      ])
      await chooser.setFiles({ name: 'parcel.png', mimeType: 'image/png', buffer: bytes })
      const image = widget().locator('.msg.mine a.image img')
      await image.waitFor(WAIT)
      await cdp.detach()
      const naturalWidth = `document.querySelector('parley-widget').shadowRoot
        .querySelector('.msg.mine a.image img').naturalWidth`
      await expect.poll(() => page.evaluate(naturalWidth), WAIT).toBe(320)
      expect(await image.getAttribute('alt')).toBe('parcel.png')
      expect([await image.getAttribute('width'), await image.getAttribute('height')]).toEqual(['240', '180'])
      expect(await image.getAttribute('src')).toMatch(new RegExp(`^${server.url}/files/[0-9]+/thumbnail/`))
      const link = widget().locator('.msg.mine a.image')
      expect(await link.getAttribute('target')).toBe('_blank')
      expect(await link.getAttribute('rel')).toBe('noopener')
      const states = (await page.evaluate('window.uploadStates')) as string[]
      const percents = states.map((state) => /^Uploading (\d+) %$/.exec(state)?.[1]).filter(Boolean)
      expect(percents.length).toBeGreaterThan(2) // 0 %, some steps between, and on to 100 %
      expect(states.at(-1)).not.toMatch(/Not sent/)

      const { messages } = (await agent.call('/case/get_by_id', { id: flow.caseID })).json.data
      const sent = (messages as { type: number; data: Record<string, unknown> }[]).at(-1)
      expect(sent).toMatchObject({ type: 1002, data: { fileName: 'parcel.png', mediaType: 'image/png' } })
      expect(sent?.data.fileID).toMatch(/^[0-9]+$/)
    })

    test('the agent sends a PDF: the widget shows a download link with its name and size', async () => {
      const pdf = Buffer.concat([
        Buffer.from('%PDF-1.4\n'),
        Buffer.alloc(33_000, 0x20),
        Buffer.from('\n%%EOF\n'),
      ])
      const uploaded = await upload(server, '/api/agent/v1/file/upload', pdf, {
        fileName: 'invoice.pdf',
        type: 'application/pdf',
        headers: { authorization: `Bearer ${agent.token}` },
      })
      const sent = await agent.call('/case/send_message', {
        id: flow.caseID,
        localID: 'ada-pdf',
        messageType: 'file',
        file: { fileID: uploaded.json.data.file.fileID, caption: 'Your invoice' },
      })
      expect(sent.status).toBe(200)
      const link = widget().getByRole('link', { name: 'invoice.pdf · 33 KB' })
      await link.waitFor(WAIT)
      const href = (await link.getAttribute('href')) as string
      expect(href).toMatch(new RegExp(`^${server.url}/files/[0-9]+/file/invoice.pdf[?]expires=`))
      const got = await fetch(href)
      expect(Buffer.compare(Buffer.from(await got.arrayBuffer()), pdf)).toBe(0)
      await widget().locator('.bubble', { hasText: 'Your invoice' }).waitFor(WAIT)
      await shot(page, 'attachments')
    })

    test('a file of a type not accepted is not sent, and the widget says why', async () => {
      const before = (await agent.call('/case/get_by_id', { id: flow.caseID })).json.data.messages.length
      await widget()
        .locator('input[type=file]')
        .setInputFiles({
          name: 'tool.exe',
          mimeType: 'application/octet-stream',
          buffer: Buffer.from([0, 1, 2, 255]),
        })
      const alert = widget().getByRole('alert')
      await alert.waitFor(WAIT)
      expect(await alert.textContent()).toBe('Not sent: files of this type are not accepted.')
      await expect(widget().locator('.msg.mine').last().textContent()).resolves.toContain('tool.exe · 4 B')
      const after = (await agent.call('/case/get_by_id', { id: flow.caseID })).json.data.messages.length
      expect(after).toBe(before)
    })

    test('an upload past the rate is not sent, and the widget says to wait a minute', async () => {
      const before = (await agent.call('/case/get_by_id', { id: flow.caseID })).json.data.messages.length
      const alerts = widget().getByRole('alert')
      const said: string[] = []
      // Refused uploads count too; a minute that ends meanwhile only resets the count, so a few
      // tries always reach the fourth of a minute.
      for (let attempt = 0; attempt < 8 && !said.includes(texts.slowDown); attempt++) {
        const shown = await alerts.count()
        await widget()
          .locator('input[type=file]')
          .setInputFiles({ name: 'tool.exe', mimeType: 'application/octet-stream', buffer: Buffer.from([1]) })
        await expect.poll(() => alerts.count(), WAIT).toBe(shown + 1)
        said.push((await alerts.last().textContent()) ?? '')
      }
      expect(said).toContain(texts.slowDown)
      const after = (await agent.call('/case/get_by_id', { id: flow.caseID })).json.data.messages.length
      expect(after).toBe(before)
    })

    test('a message the server refuses is marked as not sent, not left "Sending…"', async () => {
      const before = (await agent.call('/case/get_by_id', { id: flow.caseID })).json.data.messages.length
      await widget().getByLabel('Message').fill('x'.repeat(20_001)) // longer than any text message
      await widget().getByRole('button', { name: 'Send' }).click()
      const alert = widget()
        .getByRole('alert')
        .filter({ hasText: /^Not sent\.$/ })
      await alert.waitFor(WAIT)
      const after = (await agent.call('/case/get_by_id', { id: flow.caseID })).json.data.messages.length
      expect(after).toBe(before)
    })

    test('a reload keeps the conversation', async () => {
      await page.reload()
      await widget().getByRole('img', { name: 'parcel.png' }).waitFor(WAIT)
      await bubbles().filter({ hasText: 'Hi, Ada here. It ships today.' }).waitFor(WAIT)
      const asked = widget().locator('.bubble').getByText('Where is my parcel?', { exact: true })
      await expect(asked.count()).resolves.toBe(1)
    })

    test('offline, two messages wait; online, both arrive once, in order', async () => {
      await context.setOffline(true)
      await say('first while offline')
      await say('second while offline')
      await widget().getByText('Sending…').first().waitFor(WAIT)
      await context.setOffline(false)
      await expect
        .poll(async () => {
          const { messages } = (await agent.call('/case/get_by_id', { id: flow.caseID })).json.data
          return (messages as { body: string }[])
            .map((m) => m.body)
            .filter((b) => b.includes('while offline'))
        }, WAIT)
        .toEqual(['first while offline', 'second while offline'])
      await expect.poll(() => widget().getByText('Sending…').count(), WAIT).toBe(0)
      await expect(bubbles().filter({ hasText: 'while offline' }).count()).resolves.toBe(2)
    })

    test('the agent closes; the widget asks for a rating, also after a reload, and the agent API shows it', async () => {
      // The visitor is in the message box as the case closes live: the focus goes to the notice.
      await page.getByRole('textbox', { name: 'Message' }).focus()
      await agent.call('/case/close', { id: flow.caseID })
      await widget().getByText('This conversation is closed.').waitFor(WAIT)
      await expect.poll(() => focused(), WAIT).toBe('This conversation is closed.')
      // The conversation's last message is still in sight above the rating form.
      await expectInSight(bubbles().last())
      await shot(page, 'closed')

      // A reload keeps the closed case: its conversation, and the rating it still asks for.
      await page.reload()
      await widget().getByText('This conversation is closed.').waitFor(WAIT)
      await bubbles().filter({ hasText: 'Hi, Ada here. It ships today.' }).waitFor(WAIT)
      await expect.poll(() => focused(), WAIT).toBe('This conversation is closed.')

      // Rated with the keyboard: the star's name says what it rates.
      await page.getByRole('button', { name: 'Rate this conversation 4 of 5' }).press('Enter')
      await page.getByRole('textbox', { name: /Anything to add/ }).fill('Quick and kind')
      await page.getByRole('button', { name: 'Send rating' }).press('Enter')
      await widget().getByText('Thank you for your rating.').waitFor(WAIT)
      await expect.poll(() => focused(), WAIT).toBe('Thank you for your rating.')
      const { json } = await agent.call('/case/get_by_id', { id: flow.caseID })
      expect(json.data.case.rating).toMatchObject({ rating: 4, note: 'Quick and kind' })
      await shot(page, 'rated')
      await page.getByRole('button', { name: 'Start a new conversation' }).waitFor(WAIT)
      // Rated, after a reload it still shows, thanked, without the form.
      await page.reload()
      await widget().getByText('Thank you for your rating.').waitFor(WAIT)
      await expect(page.getByRole('button', { name: 'Send rating' }).count()).resolves.toBe(0)
      // The shop's strict Content-Security-Policy (no inline styles or scripts) refused nothing.
      expect(consoleLines.filter((line) => /Content Security Policy|Refused to/i.test(line))).toEqual([])
    })

    test('an agent reopens the closed case: the widget shows it again, with the composer', async () => {
      expect((await agent.call('/case/reopen', { id: flow.caseID })).status).toBe(200)
      await widget().getByText('The case was reopened').waitFor(WAIT)
      await page.getByRole('textbox', { name: 'Message' }).waitFor(WAIT)
      await expect(widget().getByText('This conversation is closed.').count()).resolves.toBe(0)
      await say('Thanks for coming back')
      await expect
        .poll(async () => {
          const { messages } = (await agent.call('/case/get_by_id', { id: flow.caseID })).json.data
          return (messages as { body: string }[]).at(-1)?.body
        }, WAIT)
        .toBe('Thanks for coming back')
      await agent.call('/case/close', { id: flow.caseID })
      await widget().getByText('This conversation is closed.').waitFor(WAIT)
    })

    test('a day after it closed, a visit starts anew; the page in Spanish gets the Spanish widget', async () => {
      const later = await browser.newContext({ viewport: LAPTOP })
      const visit = await later.newPage()
      try {
        // The browser's clock a day and a minute on (its timers run as ever): the closed case is no
        // longer shown.
        await visit.clock.setFixedTime(Date.now() + CLOSED_CASE_SHOWN_MS + 60_000)
        // The shop's page in Spanish, as a Spanish shop would serve it: <html lang="es">, set as
        // the parser makes the element, before the widget's script runs.
        await visit.addInitScript(`new MutationObserver((_, observer) => {
          if (!document.documentElement) return
          document.documentElement.lang = 'es'
          observer.disconnect()
        }).observe(document, { childList: true })`)
        await visit.goto(shopURL)
        await visit.getByLabel('Name').fill('Grace Hopper')
        await visit.getByRole('button', { name: /Log in/i }).click()
        await visit.getByRole('button', { name: 'Abrir chat' }).click()
        await visit.locator('parley-widget').getByText('Pregúntanos lo que quieras').waitFor(WAIT)
        await expect(
          visit.locator('parley-widget').getByText('Esta conversación está cerrada.').count(),
        ).resolves.toBe(0)
        await visit.getByRole('textbox', { name: 'Mensaje' }).waitFor(WAIT)
        await expect(visit.getByRole('button', { name: 'Ocultar chat' }).count()).resolves.toBe(1)
        await expectNoAxeViolations(visit, 'widget: in Spanish')
      } finally {
        await later.close()
      }
    })

    test('a phone-sized window works, down to 320 px', async () => {
      // The narrowest phones still in use: the panel fills the screen, nothing is cut off.
      const narrow = { width: 320, height: PHONE.height }
      const phone = await browser.newContext({ viewport: narrow })
      const small = await phone.newPage()
      await small.goto(shopURL)
      // Another shopper: Grace's closed case would show (a reload keeps it for a day).
      await small.getByLabel('Name').fill('Ada Lovelace')
      await small.getByRole('button', { name: /Log in/i }).click()
      await small.getByRole('button', { name: 'Open chat' }).click()
      const box = await small.getByRole('dialog').boundingBox()
      expect(box?.width).toBe(narrow.width)
      const send = await small.getByRole('button', { name: 'Send' }).boundingBox()
      expect((send?.x ?? Infinity) + (send?.width ?? 0)).toBeLessThanOrEqual(narrow.width)
      await small.getByRole('textbox', { name: 'Message' }).waitFor(WAIT)
      await shot(small, 'phone')
      await phone.close()
    })
  })
}

/** The element is within the widget's conversation as it is scrolled now, not scrolled away. */
async function expectInSight(element: ReturnType<Page['locator']>) {
  const box = await element.boundingBox()
  const log = await element.page().locator('parley-widget .log').boundingBox()
  expect(box && log && box.y >= log.y && box.y + box.height <= log.y + log.height + 1).toBe(true)
}
