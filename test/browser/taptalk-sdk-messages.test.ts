import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { hasChromium, launchBrowser } from '../support/browser.js'
import { createOrganization, requestTicket } from '../support/clients.js'
import { dialects } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { servePage } from '../support/taptalk-page.js'

// The TapTalk.io web SDK, unmodified, in Chromium: its own functions for editing, pinning and
// starring messages (issue 44), and what the other user sees. One flow: Ann writes to Bob, edits
// it, pins it; Bob stars it.

const WAIT = { timeout: 10_000 }

for (const dialect of dialects) {
  describe.skipIf(!hasChromium).sequential(`TapTalk.io web SDK: edits, pins, stars [${dialect}]`, () => {
    let server: TestServer
    let browser: Browser
    let page: Awaited<ReturnType<typeof servePage>>
    const users: Record<'ann' | 'bob', { page: Page; userID: string }> = {} as never
    const flow = { roomID: '', messageID: '', room: undefined as unknown, message: undefined as unknown }

    /** Runs `script` (a function body over `sdk`, `callback`, `heard`) in the user's page. */
    // biome-ignore lint/suspicious/noExplicitAny: what the SDK answers is asserted field by field
    const inPage = (who: 'ann' | 'bob', script: string, arg?: unknown): Promise<any> =>
      users[who].page.evaluate(([body, a]) => new Function('arg', `return (async () => { ${body} })()`)(a), [
        script,
        arg,
      ] as const)
    /** Waits until the user's page has heard something `predicate` (a JS expression over h) accepts. */
    // biome-ignore lint/suspicious/noExplicitAny: what the SDK hears is asserted field by field
    const heard = async (who: 'ann' | 'bob', predicate: string): Promise<any> => {
      const find = `heard.find((h) => ${predicate})`
      await users[who].page.waitForFunction(find, undefined, WAIT)
      return users[who].page.evaluate(find)
    }
    /** Calls the SDK's `tapCoreMessageManager[name]` with `args` and its callback; what it was called with. */
    const call = (who: 'ann' | 'bob', name: string, args: unknown[]) =>
      inPage(
        who,
        `const c = callback(); sdk.tapCoreMessageManager[arg.name](...arg.args, c.callback); return c.promise`,
        { name, args },
      )

    beforeAll(async () => {
      server = await startServer(dialect)
      const org = await createOrganization(server, 'SDK messages')
      const key = await server.app.services.appKeys.create(operator, org.organizationID)
      page = await servePage()
      browser = await launchBrowser()
      for (const who of ['ann', 'bob'] as const) {
        const tab = await (await browser.newContext()).newPage()
        await tab.goto(page.url)
        users[who] = { page: tab, userID: '' }
        await inPage(
          who,
          `await loaded; listen(); sdk.taptalk.init(arg.appKeyID, arg.appKeySecret, arg.url)
           for (let i = 0; i < 100 && !sdk.taptalk.getProjectConfigs(); i++) await new Promise((r) => setTimeout(r, 50))`,
          { ...key, url: server.url },
        )
        const { ticket, userID } = await requestTicket(server, org.serverKey, who, {
          fullName: `User ${who}`,
        })
        users[who].userID = userID
        await inPage(
          who,
          `const c = callback(); sdk.taptalk.authenticateWithAuthTicket(arg, false, c.callback); await c.promise
           const d = callback(); sdk.taptalk.connect({ ...d.callback, onClose() {} }); await d.promise
           const e = callback(); sdk.tapCoreRoomListManager.getUpdatedRoomList(e.callback); return e.promise`,
          ticket,
        )
      }
    })
    afterAll(async () => {
      await browser?.close()
      page?.server.close()
      if (server) await stopServer(server)
    })

    test('Ann writes to Bob; both list the room', async () => {
      const room = await inPage(
        'ann',
        'return new Promise((resolve) => sdk.tapCoreChatRoomManager.createRoomWithUserID(arg, resolve))',
        users.bob.userID,
      )
      flow.room = room.room
      flow.roomID = room.room.roomID
      await inPage('ann', 'sdk.tapCoreMessageManager.sendTextMessage("Helo Bob", arg, () => {})', flow.room)
      const received = await heard('bob', `h.kind === 'new' && h.message.body === 'Helo Bob'`)
      flow.messageID = received.message.messageID
      flow.message = received.message
      for (const who of ['ann', 'bob'] as const)
        await inPage(
          who,
          'const c = callback(); sdk.tapCoreRoomListManager.getUpdatedRoomList(c.callback); await c.promise',
        )
    })

    test("Ann edits it with the SDK's sendEmitWithEditedMessage: Bob sees the new text, edited", async () => {
      await inPage(
        'ann',
        'sdk.tapCoreMessageManager.sendEmitWithEditedMessage(arg, "Hello Bob", () => {})',
        flow.message,
      )
      const update = await heard('bob', `h.kind === 'update' && h.message.body === 'Hello Bob'`)
      expect(update.message).toMatchObject({ messageID: flow.messageID, isMessageEdited: true })
      expect(update.message.edited).toBeGreaterThan(0)
      const stored = await server.app.database.db
        .selectFrom('messages')
        .select('body')
        .where('id', '=', flow.messageID)
        .executeTakeFirstOrThrow()
      expect(stored.body).toBe('Hello Bob')
    })

    test('Ann pins it (pinMessage): Bob sees it pinned live, and in getPinnedMessageIds and fetchPinnedMessages', async () => {
      expect(await call('ann', 'pinMessage', [flow.roomID, [flow.message]])).toHaveProperty('ok')
      await heard(
        'bob',
        `h.kind === 'update' && h.message.messageID === '${flow.messageID}' && h.message.isPinned`,
      )
      const ids = await call('bob', 'getPinnedMessageIds', [flow.roomID])
      expect(ids).toEqual({ ok: [{ roomID: flow.roomID, messages: { [flow.messageID]: true } }] })
      const list = await call('bob', 'fetchPinnedMessages', [flow.roomID])
      expect(
        list.ok[0].messages.map((m: { messageID: string; body: string }) => [m.messageID, m.body]),
      ).toEqual([[flow.messageID, 'Hello Bob']])
      expect(await call('ann', 'unpinMessage', [flow.roomID, [flow.messageID], false])).toHaveProperty('ok')
      await heard(
        'bob',
        `h.kind === 'update' && h.message.messageID === '${flow.messageID}' && !h.message.isPinned`,
      )
      expect(await call('bob', 'getPinnedMessageIds', [flow.roomID])).toEqual({
        ok: [{ roomID: flow.roomID, messages: {} }],
      })
    })

    test('Bob stars it (starMessage): his lists have it, Ann sees no star of his', async () => {
      expect(await call('bob', 'starMessage', [flow.roomID, [flow.messageID]])).toHaveProperty('ok')
      expect(await call('bob', 'getStarredMessageIds', [flow.roomID])).toEqual({
        ok: [{ roomID: flow.roomID, messages: { [flow.messageID]: true } }],
      })
      const list = await call('bob', 'fetchStarredMessages', [flow.roomID])
      expect(
        list.ok[0].messages.map((m: { messageID: string; body: string }) => [m.messageID, m.body]),
      ).toEqual([[flow.messageID, 'Hello Bob']])
      expect(await call('ann', 'getStarredMessageIds', [flow.roomID])).toEqual({
        ok: [{ roomID: flow.roomID, messages: {} }],
      })
      expect(await call('bob', 'unstarMessage', [flow.roomID, [flow.messageID]])).toHaveProperty('ok')
      expect(await call('bob', 'getStarredMessageIds', [flow.roomID])).toEqual({
        ok: [{ roomID: flow.roomID, messages: {} }],
      })
    })
  })
}
