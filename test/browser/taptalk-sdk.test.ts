import type { Browser, Page } from 'playwright-core'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ACCESS_TOKEN_LIFETIME_MS } from '../../src/domain/sessions/access-tokens.js'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { hasChromium, launchBrowser } from '../support/browser.js'
import { createOrganization, requestTicket } from '../support/clients.js'
import { dialects } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { servePage } from '../support/taptalk-page.js'
import { png } from '../support/uploads.js'

// The TapTalk.io web SDK, unmodified, in Chromium against Parley: two users, each in their own
// browser context, from ticket to logout (issue 16's twenty steps). The steps are one flow: each
// goes on from where the previous one left the two users.

const WAIT = { timeout: 10_000 }

for (const dialect of dialects) {
  describe.skipIf(!hasChromium).sequential(`TapTalk.io web SDK in a browser [${dialect}]`, () => {
    let server: TestServer
    let browser: Browser
    let page: Awaited<ReturnType<typeof servePage>>
    let org: Awaited<ReturnType<typeof createOrganization>>
    let key: { appKeyID: string; appKeySecret: string }
    const users: Record<'ann' | 'bob', { page: Page; userID: string }> = {} as never
    const flow = { roomID: '', messageID: '', room: undefined as unknown }

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
    const init = (who: 'ann' | 'bob') =>
      inPage(
        who,
        `await loaded; listen(); sdk.taptalk.init(arg.appKeyID, arg.appKeySecret, arg.url)
         for (let i = 0; i < 100 && !sdk.taptalk.getProjectConfigs(); i++) await new Promise((r) => setTimeout(r, 50))
         return sdk.taptalk.getProjectConfigs()`,
        { ...key, url: server.url },
      )
    const connect = (who: 'ann' | 'bob') =>
      inPage(
        who,
        'const c = callback(); sdk.taptalk.connect({ ...c.callback, onClose() {} }); return c.promise',
      )
    const roomList = (who: 'ann' | 'bob') =>
      inPage(
        who,
        `const c = callback(); sdk.tapCoreRoomListManager.getUpdatedRoomList(c.callback)
         const { ok } = await c.promise
         return Object.values(ok[0]).map((r) => ({ roomID: r.lastMessage.room.roomID, body: r.lastMessage.body }))`,
      )

    beforeAll(async () => {
      server = await startServer(dialect)
      org = await createOrganization(server, 'SDK users')
      key = await server.app.services.appKeys.create(operator, org.organizationID)
      page = await servePage()
      browser = await launchBrowser()
      for (const who of ['ann', 'bob'] as const) {
        const context = await browser.newContext()
        const tab = await context.newPage()
        await tab.goto(page.url)
        users[who] = { page: tab, userID: '' }
      }
    })
    afterAll(async () => {
      await browser?.close()
      page?.server.close()
      if (server) await stopServer(server)
    })

    test('1-4. init, authenticate with a ticket, connect, an empty room list', async () => {
      for (const who of ['ann', 'bob'] as const) {
        expect(await init(who)).toMatchObject({ core: { chatMediaMaxFileSize: 25 * 1024 * 1024 } })
        const { ticket, userID } = await requestTicket(server, org.serverKey, who, {
          fullName: `User ${who}`,
        })
        users[who].userID = userID
        const authenticated = await inPage(
          who,
          `const c = callback(); sdk.taptalk.authenticateWithAuthTicket(arg, false, c.callback); return c.promise`,
          ticket,
        )
        expect(authenticated).toEqual({ ok: ['Request access token success'] })
        expect(await inPage(who, 'return sdk.taptalk.getTaptalkActiveUser()')).toMatchObject({
          userID,
          xcUserID: who,
        })
        expect(await connect(who)).toEqual({ ok: ['Successfully connected to TapTalk.io server'] })
        expect(await roomList(who)).toEqual([])
      }
    })

    test('5-7. user lookup opens a personal room; a message is sent and received live', async () => {
      const room = await inPage(
        'ann',
        'const r = await new Promise((resolve) => sdk.tapCoreChatRoomManager.createRoomWithUserID(arg, resolve)); return r',
        users.bob.userID,
      )
      const [low, high] = [users.ann.userID, users.bob.userID].sort((a, b) => Number(BigInt(a) - BigInt(b)))
      flow.roomID = `${low}-${high}`
      expect(room).toMatchObject({ success: true, room: { roomID: flow.roomID, name: 'User bob', type: 1 } })
      flow.room = room.room
      await inPage(
        'ann',
        'sdk.tapCoreMessageManager.sendTextMessage("Hello Bob 👋", arg, () => {})',
        room.room,
      )
      const received = await heard('bob', `h.kind === 'new' && h.message.body === 'Hello Bob 👋'`)
      expect(received.message).toMatchObject({
        room: { roomID: flow.roomID },
        user: { userID: users.ann.userID },
      })
      flow.messageID = received.message.messageID
      // Stored as the text it is: Parley's own API reads it plainly.
      const stored = await server.app.database.db
        .selectFrom('messages')
        .select('body')
        .where('id', '=', flow.messageID)
        .executeTakeFirstOrThrow()
      expect(stored.body).toBe('Hello Bob 👋')
    })

    test('8. history before and after', async () => {
      await inPage(
        'ann',
        'sdk.tapCoreMessageManager.sendTextMessage("second", { roomID: arg, type: 1 }, () => {})',
        flow.roomID,
      )
      await heard('bob', `h.kind === 'new' && h.message.body === 'second'`)
      const before = await inPage(
        'bob',
        `const c = callback(); sdk.tapCoreMessageManager.getOlderMessagesBeforeTimestamp(arg, 10, c.callback)
         const { ok } = await c.promise; return Object.values(ok[0]).map((m) => m.body)`,
        flow.roomID,
      )
      expect(before).toEqual(expect.arrayContaining(['Hello Bob 👋', 'second']))
      const after = await inPage(
        'bob',
        `const c = callback(); sdk.tapCoreMessageManager.getNewerMessagesAfterTimestamp(arg, c.callback)
         const { ok } = await c.promise; return Object.values(ok[0]).map((m) => m.body)`,
        flow.roomID,
      )
      expect(after).toEqual(['second', 'Hello Bob 👋'])
    })

    test('9. after a reload the SDK is still signed in and lists the room with its last message', async () => {
      await users.bob.page.reload()
      await init('bob')
      expect(await inPage('bob', 'return sdk.taptalk.isAuthenticated()')).toBe(true)
      expect(await connect('bob')).toEqual({ ok: ['Successfully connected to TapTalk.io server'] })
      expect(await roomList('bob')).toEqual([{ roomID: flow.roomID, body: 'second' }])
    })

    test('10. offline, then new_and_updated brings what was missed', async () => {
      await inPage('bob', `sdk.taptalk.disconnect(); window.dispatchEvent(new Event('offline'))`)
      await inPage(
        'ann',
        'sdk.tapCoreMessageManager.sendTextMessage("while you were away", { roomID: arg, type: 1 }, () => {})',
        flow.roomID,
      )
      // Stored before Bob asks: the SDK asks for what changed once, then reads its cache.
      const stored = () =>
        server.app.database.db
          .selectFrom('messages')
          .select('id')
          .where('body', '=', 'while you were away')
          .execute()
      await expect.poll(async () => (await stored()).length, WAIT).toBe(1)
      expect(JSON.stringify(await roomList('bob'))).toContain('while you were away')
      expect(await connect('bob')).toEqual({ ok: ['Successfully connected to TapTalk.io server'] })
    })

    test('11. a read receipt reaches the sender', async () => {
      await inPage('bob', 'sdk.tapCoreMessageManager.markMessageAsRead([arg])', flow.messageID)
      const update = await heard(
        'ann',
        `h.kind === 'update' && h.message.messageID === '${flow.messageID}' && h.message.isRead`,
      )
      expect(update.message.body).toBe('Hello Bob 👋')
    })

    test('12. typing reaches the other user, and is not echoed to the typist', async () => {
      await inPage('ann', 'sdk.tapCoreChatRoomManager.sendStartTypingEmit(arg)', flow.roomID)
      const typing = await heard('bob', `h.kind === 'typing'`)
      expect(typing).toMatchObject({ roomID: flow.roomID, user: { userID: users.ann.userID } })
      await inPage('ann', 'sdk.tapCoreChatRoomManager.sendStopTypingEmit(arg)', flow.roomID)
      await heard('bob', `h.kind === 'stopTyping'`)
      expect(await inPage('ann', `return heard.filter((h) => h.kind.endsWith('yping'))`)).toEqual([])
    })

    test('13. an error reaches onError with its code and message', async () => {
      const reply = await inPage(
        'ann',
        'const c = callback(); sdk.tapCoreContactManager.getUserDataWithUserID("12345", c.callback); return c.promise',
      )
      expect(reply).toEqual({ error: ['40401', 'User 12345 not found'] })
    })

    test('14. an expired access token is refreshed and the call goes through', async () => {
      server.clock.advance(ACCESS_TOKEN_LIFETIME_MS + 1000)
      const reply = await inPage(
        'ann',
        'const c = callback(); sdk.tapCoreContactManager.getUserDataWithUserID(arg, c.callback); return c.promise',
        users.bob.userID,
      )
      expect(reply).toMatchObject({ ok: [{ user: { userID: users.bob.userID } }] })
      expect(await inPage('ann', `return heard.filter((h) => h.kind === 'refreshTokenExpired')`)).toEqual([])
    })

    test("15. a message from Parley's own API shows as plain text", async () => {
      const cy = await org.signIn('cy')
      await cy.call('/v1/chat/message/send', {
        recipientUserID: users.bob.userID,
        localID: 'api-1',
        type: 1001,
        body: 'from the API',
      })
      const received = await heard('bob', `h.kind === 'new' && h.message.user.xcUserID === 'cy'`)
      expect(received.message.body).toBe('from the API')
    })

    test('16. an image: uploaded by the SDK, sent, and downloaded by the other user by its fileID', async () => {
      const image = await png(120, 90)
      // The SDK reads the image's size in an onload it does not wait for, while it compresses the
      // file: on a busy machine the compression can finish first and size its canvas '' (0 pixels),
      // uploading the bytes 'null'. The page holds FileReader back until a blob: image has loaded,
      // the order the SDK assumes (and gets on an idle machine).
      const sent = await inPage(
        'ann',
        `const bytes = Uint8Array.from(atob(arg.png), (c) => c.charCodeAt(0))
         const file = new File([bytes], 'sunset.png', { type: 'image/png' })
         const c = callback()
         const { Image, FileReader } = window
         let measured
         const sized = new Promise((resolve) => { measured = resolve })
         window.Image = function () {
           const image = new Image()
           image.addEventListener('load', () => { if (image.src.startsWith('blob:')) measured() })
           return image
         }
         const readAsDataURL = FileReader.prototype.readAsDataURL
         FileReader.prototype.readAsDataURL = function (blob) { sized.then(() => readAsDataURL.call(this, blob)) }
         sdk.tapCoreMessageManager.sendImageMessage(file, 'a sunset', arg.room, { ...c.callback, onStart() {}, onProgress() {} })
         return c.promise.finally(() => { window.Image = Image; FileReader.prototype.readAsDataURL = readAsDataURL })`,
        { png: image.toString('base64'), room: flow.room },
      )
      expect(sent.ok?.[0]?.data).toMatchObject({ fileName: 'sunset.png', mediaType: 'image/png', width: 120 })
      const received = await heard('bob', `h.kind === 'new' && h.message.type === 1002`)
      expect(received.message.body).toBe('🖼 a sunset')
      const { fileID } = received.message.data
      const stored = await server.app.database.db
        .selectFrom('files')
        .select(['message_id', 'uploader_id', 'size'])
        .where('id', '=', fileID)
        .executeTakeFirstOrThrow()
      expect(stored).toMatchObject({ message_id: received.message.messageID, uploader_id: users.ann.userID })
      const downloaded = await inPage(
        'bob',
        `const c = callback()
         sdk.tapCoreChatRoomManager.downloadMessageFile(arg, { ...c.callback, onProgress() {} })
         return c.promise`,
        received.message,
      )
      // What the SDK uploaded (it redraws images before sending), byte for byte as Parley holds it.
      expect(downloaded.ok?.[0]?.contentType).toBe('image/png')
      const bytes = Buffer.from(downloaded.ok?.[0]?.base64, 'base64')
      expect(bytes.length).toBe(Number(stored.size))
      expect(await sharp(bytes).metadata()).toMatchObject({ format: 'png', width: 120, height: 90 })
    })

    test('17. logout ends the session on the server', async () => {
      const reply = await inPage(
        'bob',
        'const c = callback(); sdk.taptalk.logoutAndClearAllTapTalkData(c.callback); return c.promise',
      )
      expect(reply).toEqual({ ok: ['Logged out successfully'] })
      const revoked = () =>
        server.app.database.db
          .selectFrom('sessions')
          .select('revoked_at')
          .where('user_id', '=', users.bob.userID)
          .execute()
      await expect.poll(async () => (await revoked()).every((s) => s.revoked_at !== null), WAIT).toBe(true)
    })
  })
}
