import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { hasChromium, launchBrowser } from '../support/browser.js'
import { createOrganization, requestTicket, signIn } from '../support/clients.js'
import { dialects } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { servePage } from '../support/taptalk-page.js'

// The TapTalk.io web SDK, unmodified, in Chromium against Parley: contacts, blocking and the user's
// own room state, through the SDK's own public functions (tapCoreContactManager,
// tapCoreRoomListManager, tapCoreChatRoomManager), as each of two users sees them. The steps are
// one flow: each goes on from where the previous one left the two users.

const WAIT = { timeout: 10_000 }
/** ann and bob, and ann's second device (her tablet: another session of hers). */
type Who = 'ann' | 'bob' | 'tablet'
const PHONES = { bob: '+447700900201', cat: '+447700900202' }

for (const dialect of dialects) {
  describe
    .skipIf(!hasChromium)
    .sequential(`TapTalk.io web SDK: contacts, blocking, room state [${dialect}]`, () => {
      let server: TestServer
      let browser: Browser
      let page: Awaited<ReturnType<typeof servePage>>
      let org: Awaited<ReturnType<typeof createOrganization>>
      let key: { appKeyID: string; appKeySecret: string }
      let cat: Awaited<ReturnType<typeof signIn>>
      const users: Record<Who, { page: Page; userID: string }> = {} as never
      let roomID = ''

      /** Runs `script` (a function body over `sdk`, `callback`, `heard`, `arg`) in the user's page. */
      // biome-ignore lint/suspicious/noExplicitAny: what the SDK answers is asserted field by field
      const inPage = (who: Who, script: string, arg?: unknown): Promise<any> =>
        users[who].page.evaluate(
          ([body, a]) => new Function('arg', `return (async () => { ${body} })()`)(a),
          [script, arg] as const,
        )
      /** Calls `manager.fn(...args, callback)` in the user's page; what the callback got. */
      // biome-ignore lint/suspicious/noExplicitAny: what the SDK answers is asserted field by field
      const sdkCall = (who: Who, fn: string, ...args: unknown[]): Promise<any> =>
        inPage(who, `const c = callback(); sdk.${fn}(...arg, c.callback); return c.promise`, args)
      /** Waits until an SDK call's answer satisfies `check` (for calls whose callback answers before the server does). */
      const until = async (who: Who, fn: string, check: (ok: unknown[]) => boolean) =>
        expect.poll(async () => check((await sdkCall(who, fn)).ok), WAIT).toBe(true)

      beforeAll(async () => {
        server = await startServer(dialect)
        org = await createOrganization(server, 'SDK people')
        key = await server.app.services.appKeys.create(operator, org.organizationID)
        cat = await signIn(server, org.serverKey, 'cat', { phone: PHONES.cat })
        page = await servePage()
        browser = await launchBrowser()
        for (const who of ['ann', 'bob', 'tablet'] as const) {
          const tab = await (await browser.newContext()).newPage()
          await tab.goto(page.url)
          users[who] = { page: tab, userID: '' }
        }
      })
      afterAll(async () => {
        await browser?.close()
        page?.server.close()
        if (server) await stopServer(server)
      })

      test('signed in and connected, with a personal room between them', async () => {
        for (const who of ['ann', 'bob', 'tablet'] as const) {
          await inPage(
            who,
            `await loaded; listen(); sdk.taptalk.init(arg.appKeyID, arg.appKeySecret, arg.url)
           for (let i = 0; i < 100 && !sdk.taptalk.getProjectConfigs(); i++) await new Promise((r) => setTimeout(r, 50))`,
            { ...key, url: server.url },
          )
          const phone = who === 'bob' ? { phone: PHONES.bob } : {}
          const xcUserID = who === 'tablet' ? 'ann' : who
          const { ticket, userID } = await requestTicket(server, org.serverKey, xcUserID, {
            fullName: `User ${xcUserID}`,
            ...phone,
          })
          users[who].userID = userID
          expect(await sdkCall(who, 'taptalk.authenticateWithAuthTicket', ticket, false)).toEqual({
            ok: ['Request access token success'],
          })
          expect(
            await inPage(
              who,
              'const c = callback(); sdk.taptalk.connect({ ...c.callback, onClose() {} }); return c.promise',
            ),
          ).toEqual({
            ok: ['Successfully connected to TapTalk.io server'],
          })
        }
        // The tablet's app listens to the contact list's changes.
        await inPage(
          'tablet',
          `sdk.tapCoreContactManager.addContactListener({
             onContactBlocked: (user) => heard.push({ kind: 'blocked', user: copy(user) }),
             onContactUnblocked: (user) => heard.push({ kind: 'unblocked', user: copy(user) }),
           })`,
        )
        // Each loads its room list, as an app does once connected.
        for (const who of ['ann', 'bob'] as const)
          await sdkCall(who, 'tapCoreRoomListManager.getUpdatedRoomList')
        const room = await inPage(
          'bob',
          'return await new Promise((resolve) => sdk.tapCoreChatRoomManager.createRoomWithUserID(arg, resolve))',
          users.ann.userID,
        )
        roomID = room.room.roomID
        await inPage('bob', 'sdk.tapCoreMessageManager.sendTextMessage("hi Ann", arg, () => {})', room.room)
        await users.ann.page.waitForFunction(
          `heard.some((h) => h.kind === 'new' && h.message.body === 'hi Ann')`,
          undefined,
          WAIT,
        )
      })

      test('contacts: add by userID and by phone number, list, remove; private to each user', async () => {
        const added = await sdkCall(
          'ann',
          'tapCoreContactManager.addToTapTalkContactsWithUserID',
          users.bob.userID,
        )
        expect(added.ok[0]).toMatchObject({ userID: users.bob.userID, fullname: 'User bob' })
        const byPhone = await sdkCall('ann', 'tapCoreContactManager.addToTapTalkContactsWithPhoneNumber', [
          '+44 7700 900202',
          '+15550000000',
        ])
        expect(byPhone.ok[0].map((u: { userID: string }) => u.userID)).toEqual([cat.userID])
        const listed = await sdkCall('ann', 'tapCoreContactManager.getAllUserContacts')
        // Oldest first; two added in the same millisecond may come either way.
        expect(listed.ok[0].map((c: { user: { userID: string } }) => c.user.userID).sort()).toEqual(
          [users.bob.userID, cat.userID].sort(),
        )
        expect(await sdkCall('bob', 'tapCoreContactManager.getAllUserContacts')).toEqual({ ok: [[]] })
        expect(await sdkCall('ann', 'tapCoreContactManager.removeFromTapTalkContacts', cat.userID)).toEqual({
          ok: ['Removed from contacts successfully'],
        })
        const after = await sdkCall('ann', 'tapCoreContactManager.getAllUserContacts')
        expect(after.ok[0].map((c: { user: { userID: string } }) => c.user.userID)).toEqual([
          users.bob.userID,
        ])
      })

      test('blocking: the blocker lists it; the blocked user is not told, and their messages do not arrive', async () => {
        expect(await sdkCall('ann', 'tapCoreContactManager.blockUser', users.bob.userID)).toEqual({
          ok: [{}],
        })
        expect(await sdkCall('ann', 'tapCoreContactManager.getBlockedUserIDs')).toEqual({
          ok: [[users.bob.userID]],
        })
        const list = await sdkCall('ann', 'tapCoreContactManager.getBlockedUserList')
        expect(list.ok[0]).toEqual([
          { user: expect.objectContaining({ userID: users.bob.userID }), created: expect.any(Number) },
        ])
        expect(await sdkCall('ann', 'tapCoreContactManager.getAllUserContacts')).toEqual({ ok: [[]] })
        expect(await sdkCall('bob', 'tapCoreContactManager.getBlockedUserIDs')).toEqual({ ok: [[]] })
        await inPage(
          'bob',
          'sdk.tapCoreMessageManager.sendTextMessage("blocked words", { roomID: arg, type: 1 }, () => {})',
          roomID,
        )
        // cat writes to ann after bob did: when cat's message is there, bob's would have been.
        await cat.call('/v1/chat/message/send', {
          recipientUserID: users.ann.userID,
          localID: 'c1',
          type: 1001,
          body: 'from cat',
        })
        await users.ann.page.waitForFunction(
          `heard.some((h) => h.kind === 'new' && h.message.body === 'from cat')`,
          undefined,
          WAIT,
        )
        expect(
          await inPage('ann', `return heard.filter((h) => h.message?.body === 'blocked words')`),
        ).toEqual([])
        // ann's tablet hears of the block (its contact listener); bob's app hears of nothing.
        await users.tablet.page.waitForFunction(`heard.some((h) => h.kind === 'blocked')`, undefined, WAIT)
        expect(
          await inPage(
            'tablet',
            `return heard.filter((h) => h.kind === 'blocked').map((h) => h.user.userID)`,
          ),
        ).toEqual([users.bob.userID])
        expect(await inPage('bob', `return heard.filter((h) => h.kind.endsWith('blocked'))`)).toEqual([])
        expect(await sdkCall('ann', 'tapCoreContactManager.unblockUser', users.bob.userID)).toEqual({
          ok: [{}],
        })
        expect(await sdkCall('ann', 'tapCoreContactManager.getBlockedUserIDs')).toEqual({ ok: [[]] })
        expect(await sdkCall('ann', 'tapCoreContactManager.getBlockedUserList')).toEqual({ ok: [[]] })
        await users.tablet.page.waitForFunction(`heard.some((h) => h.kind === 'unblocked')`, undefined, WAIT)
      })

      test('mute and unmute: the muted rooms are the user’s own', async () => {
        expect((await sdkCall('ann', 'tapCoreRoomListManager.setMutedRooms', [roomID], 0)).ok).toBeDefined()
        expect(await sdkCall('ann', 'tapCoreRoomListManager.getMutedRooms')).toEqual({
          ok: [{ [roomID]: { roomID, expiredAt: 0 } }],
        })
        expect(await sdkCall('bob', 'tapCoreRoomListManager.getMutedRooms')).toEqual({ ok: [{}] })
        expect((await sdkCall('ann', 'tapCoreRoomListManager.unsetMutedRooms', [roomID])).ok).toBeDefined()
        expect(await sdkCall('ann', 'tapCoreRoomListManager.getMutedRooms')).toEqual({ ok: [{}] })
      })

      test('pin and unpin', async () => {
        // The SDK pins rooms of its room list.
        await sdkCall('ann', 'tapCoreRoomListManager.getUpdatedRoomList')
        const pinned = await sdkCall('ann', 'tapCoreRoomListManager.pinRoom', [roomID])
        expect(pinned.ok[0]).toEqual({ [roomID]: roomID })
        expect(await sdkCall('ann', 'tapCoreRoomListManager.getPinnedRoomID')).toEqual({
          ok: [{ [roomID]: roomID }],
        })
        expect(await sdkCall('bob', 'tapCoreRoomListManager.getPinnedRoomID')).toEqual({ ok: [{}] })
        // unpinRoom (1.39.0) never calls back (it refers to an undefined variable once the server
        // answered): the pinned rooms it reads afterwards say it worked.
        // getPinnedRoomID only adds to the SDK's pinned IDs: a read the server answered before the
        // unpin, arriving after it, would pin the room again in the SDK for good. So read after.
        const unpinned = users.ann.page.waitForResponse((response) =>
          response.url().endsWith('/v1/client/room/unpin'),
        )
        await inPage('ann', 'sdk.tapCoreRoomListManager.unpinRoom(arg, { onSuccess() {}, onError() {} })', [
          roomID,
        ])
        expect((await unpinned).status()).toBe(200)
        await until('ann', 'tapCoreRoomListManager.getPinnedRoomID', (ok) => JSON.stringify(ok) === '[{}]')
      })

      test('mark as unread, until the room is read', async () => {
        // The SDK marks rooms of its room list, and answers before the server does.
        await sdkCall('ann', 'tapCoreRoomListManager.getUpdatedRoomList')
        const marked = await sdkCall('ann', 'tapCoreChatRoomManager.markChatRoomAsUnread', [roomID])
        expect(marked.ok[0][roomID]).toMatchObject({ isMarkAsUnread: true })
        const unreadIDs = (ok: unknown[]) =>
          (ok[0] as { data: { unreadRoomIDs: string[] } }).data.unreadRoomIDs
        await until('ann', 'tapCoreChatRoomManager.getMarkedAsUnreadChatRoomList', (ok) =>
          unreadIDs(ok).includes(roomID),
        )
        const bobs = await sdkCall('bob', 'tapCoreChatRoomManager.getMarkedAsUnreadChatRoomList')
        expect(unreadIDs(bobs.ok)).toEqual([])
        await inPage('ann', 'sdk.tapCoreMessageManager.markAllMessagesInRoomAsRead(arg)', roomID)
        await until(
          'ann',
          'tapCoreChatRoomManager.getMarkedAsUnreadChatRoomList',
          (ok) => unreadIDs(ok).length === 0,
        )
      })
    })
}
