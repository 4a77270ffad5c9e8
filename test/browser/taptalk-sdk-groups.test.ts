import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { hasChromium, launchBrowser } from '../support/browser.js'
import { createOrganization, requestTicket } from '../support/clients.js'
import { dialects } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { servePage } from '../support/taptalk-page.js'
import { png } from '../support/uploads.js'

// The TapTalk.io web SDK, unmodified, in Chromium against Parley: group roles and profiles through
// the SDK's own functions, two users each in their own browser context. The steps are one flow.

/** Ann, Bob, and Bob on a second device. */
type Who = 'ann' | 'bob' | 'bob2'

for (const dialect of dialects) {
  describe.skipIf(!hasChromium).sequential(`TapTalk.io web SDK: groups and profiles [${dialect}]`, () => {
    let server: TestServer
    let browser: Browser
    let page: Awaited<ReturnType<typeof servePage>>
    let org: Awaited<ReturnType<typeof createOrganization>>
    const users: Record<Who, { page: Page; userID: string }> = {} as never
    const flow = { roomID: '', photoIDs: [] as string[] }

    /** Runs `script` (a function body over `sdk`, `callback`, `arg`) in the user's page. */
    // biome-ignore lint/suspicious/noExplicitAny: what the SDK answers is asserted field by field
    const inPage = (who: Who, script: string, arg?: unknown): Promise<any> =>
      users[who].page.evaluate(([body, a]) => new Function('arg', `return (async () => { ${body} })()`)(a), [
        script,
        arg,
      ] as const)
    /** Calls an SDK function whose last parameter is a callback object; what it was called with. */
    const sdkCall = (who: Who, fn: string, args: unknown[] = []) =>
      inPage(who, `const c = callback(); ${fn}(...arg, c.callback); return c.promise`, args)
    const pngArg = async (width: number, height: number) => (await png(width, height)).toString('base64')
    const FILE = `new File([Uint8Array.from(atob(arg[0]), (c) => c.charCodeAt(0))], 'photo.png', { type: 'image/png' })`
    const serverAPI = async (path: string, body: unknown) => {
      const reply = await server.post(`/v1/server${path}`, body, { 'server-key': org.serverKey })
      expect(reply.json.error.code, reply.text).toBe('')
      return reply.json.data
    }

    beforeAll(async () => {
      server = await startServer(dialect)
      org = await createOrganization(server, 'SDK groups')
      const key = await server.app.services.appKeys.create(operator, org.organizationID)
      page = await servePage()
      browser = await launchBrowser()
      for (const who of ['ann', 'bob', 'bob2'] as const) {
        const tab = await (await browser.newContext()).newPage()
        await tab.goto(page.url)
        users[who] = { page: tab, userID: '' }
        await inPage(
          who,
          `await loaded; listen(); sdk.taptalk.init(arg.appKeyID, arg.appKeySecret, arg.url)
           for (let i = 0; i < 100 && !sdk.taptalk.getProjectConfigs(); i++) await new Promise((r) => setTimeout(r, 50))`,
          { ...key, url: server.url },
        )
        const xcUserID = who === 'bob2' ? 'bob' : who
        const { ticket, userID } = await requestTicket(server, org.serverKey, xcUserID, {
          fullName: `User ${xcUserID}`,
          username: `${xcUserID}.sdk`,
        })
        users[who].userID = userID
        const authenticated = await inPage(
          who,
          `const c = callback(); sdk.taptalk.authenticateWithAuthTicket(arg, false, c.callback); return c.promise`,
          ticket,
        )
        expect(authenticated).toEqual({ ok: ['Request access token success'] })
      }
    })
    afterAll(async () => {
      await browser?.close()
      page?.server.close()
      if (server) await stopServer(server)
    })

    test('get_by_username and update_bio: Bob finds Ann by her username, with the bio she set', async () => {
      const bio = await sdkCall('ann', 'sdk.taptalk.updateBio', ['Sails on weekends'])
      expect(bio).toEqual({ ok: ['Successfully update bio'] })
      const found = await sdkCall('bob', 'sdk.tapCoreContactManager.getUserByUsername', ['ann.sdk', false])
      expect(found.ok[0].user).toMatchObject({
        userID: users.ann.userID,
        username: 'ann.sdk',
        bio: 'Sails on weekends',
      })
      const anyCase = await sdkCall('bob', 'sdk.tapCoreContactManager.getUserByUsername', ['ANN.SDK', true])
      expect(anyCase.ok[0].user.userID).toBe(users.ann.userID)
      const missing = await sdkCall('bob', 'sdk.tapCoreContactManager.getUserByUsername', ['nobody', false])
      expect(missing.error?.[0]).toBe('40401')
    })

    test('user photos: upload (main), list, set main, delete; the active user follows', async () => {
      for (const size of [40, 60]) {
        const uploaded = await inPage(
          'ann',
          `const c = callback(); sdk.taptalk.uploadUserPhoto(${FILE}, c.callback); return c.promise`,
          [await pngArg(size, size)],
        )
        expect(uploaded).toEqual({ ok: ['Successfully uploaded user photo'] })
      }
      const active = await inPage('ann', 'return sdk.taptalk.getTaptalkActiveUser()')
      expect(active.imageURL.fullsize).toMatch(/\/files\/\d+\/file\/photo\.png\?expires=\d+&signature=/)
      const list = await sdkCall('bob', 'sdk.taptalk.getListUserPhoto', [users.ann.userID])
      const photos = list.ok[0].userPhotos
      expect(photos).toHaveLength(2)
      expect(photos[0]).toMatchObject({ fullsizeImageURL: active.imageURL.fullsize, isMain: true })
      flow.photoIDs = photos.map((photo: { id: string }) => photo.id)
      // The older one becomes main again; the newer is deleted.
      expect(await sdkCall('ann', 'sdk.taptalk.setMainUserPhoto', [photos[1].id])).toEqual({
        ok: ['Successfully set as main photo'],
      })
      expect((await inPage('ann', 'return sdk.taptalk.getTaptalkActiveUser()')).imageURL.fullsize).toBe(
        photos[1].fullsizeImageURL,
      )
      expect(
        await sdkCall('ann', 'sdk.taptalk.deleteUserPhoto', [photos[0].id, photos[0].createdTime]),
      ).toEqual({
        ok: ['Successfully delete photo'],
      })
      const after = await sdkCall('bob', 'sdk.taptalk.getListUserPhoto', [users.ann.userID])
      expect(after.ok[0].userPhotos.map((p: { id: string }) => p.id)).toEqual([photos[1].id])
      const seen = await sdkCall('bob', 'sdk.tapCoreContactManager.getUserByUsername', ['ann.sdk', false])
      expect(seen.ok[0].user.imageURL.fullsize).toBe(photos[1].fullsizeImageURL)
    })

    test('get_by_xc_room_id and groups_in_common: the room the backend made, as each sees it', async () => {
      const { room } = await serverAPI('/room/create', {
        name: 'Order 42',
        userIDs: [users.ann.userID, users.bob.userID],
        adminUserIDs: [users.ann.userID],
        xcRoomID: 'order-42',
      })
      flow.roomID = room.roomID
      await serverAPI('/message/send', {
        roomID: room.roomID,
        localID: 'm1',
        type: 1001,
        body: 'Order placed',
      })
      for (const who of ['ann', 'bob'] as const) {
        const found = await sdkCall(who, 'sdk.tapCoreRoomListManager.getRoomByXcID', ['order-42'])
        expect(found.ok[0].room).toMatchObject({
          roomID: room.roomID,
          name: 'Order 42',
          xcRoomID: 'order-42',
        })
      }
      const common = await sdkCall('ann', 'sdk.tapCoreChatRoomManager.fetchGroupInCommon', [users.bob.userID])
      expect(common.ok[0].map((r: { roomID: string }) => r.roomID)).toEqual([room.roomID])
      expect(common.ok[0][0].imageURL).toEqual({ thumbnail: '', fullsize: '' })
    })

    test('update and photo/upload: the admin renames the room and sets its photo; a member cannot', async () => {
      const byBob = await sdkCall('bob', 'sdk.tapCoreChatRoomManager.updateGroupChatRoomDetails', [
        flow.roomID,
        'Mine',
      ])
      expect(byBob.error?.[0]).toBe('40301')
      const renamed = await sdkCall('ann', 'sdk.tapCoreChatRoomManager.updateGroupChatRoomDetails', [
        flow.roomID,
        'Order 42 (paid)',
      ])
      expect(renamed.ok[0]).toMatchObject({ roomID: flow.roomID, name: 'Order 42 (paid)' })
      const photo = await inPage(
        'ann',
        `const c = callback()
         sdk.tapCoreChatRoomManager.updateGroupPicture(arg[1], ${FILE}, { ...c.callback, onProgress() {} })
         return c.promise`,
        [await pngArg(50, 50), flow.roomID],
      )
      expect(photo.ok[0].imageURL.fullsize).toMatch(/\/files\/\d+\/file\/photo\.png\?/)
      const seen = await sdkCall('bob', 'sdk.tapCoreChatRoomManager.getGroupChatRoom', [flow.roomID])
      expect(seen.ok[0].room).toMatchObject({ name: 'Order 42 (paid)', imageURL: photo.ok[0].imageURL })
    })

    test('admins/promote and admins/demote; the last admin cannot leave', async () => {
      const promoted = await sdkCall('ann', 'sdk.tapCoreChatRoomManager.promoteGroupAdmins', [
        flow.roomID,
        [users.bob.userID],
      ])
      expect(promoted.ok[0].adminUserIDs).toEqual([users.ann.userID, users.bob.userID])
      const demoted = await sdkCall('bob', 'sdk.tapCoreChatRoomManager.demoteGroupAdmins', [
        flow.roomID,
        [users.bob.userID],
      ])
      expect(demoted.ok[0].adminUserIDs).toEqual([users.ann.userID])
      const demoteLast = await sdkCall('ann', 'sdk.tapCoreChatRoomManager.demoteGroupAdmins', [
        flow.roomID,
        [users.ann.userID],
      ])
      expect(demoteLast.error?.[0]).toBe('40901')
      const leave = await sdkCall('ann', 'sdk.tapCoreChatRoomManager.leaveGroupChatRoom', [flow.roomID])
      expect(leave.error?.[0]).toBe('40901')
    })

    test('clear_chat: Bob clears the room for himself (his other device hears it); Ann still reads its history', async () => {
      const connected = await inPage(
        'bob2',
        `sdk.tapCoreRoomListManager.addRoomListListener({ onChatRoomDeleted: (roomID) => heard.push({ kind: 'cleared', roomID }) })
         const c = callback(); sdk.taptalk.connect({ ...c.callback, onClose() {} }); return c.promise`,
      )
      expect(connected).toEqual({ ok: ['Successfully connected to TapTalk.io server'] })
      const cleared = await sdkCall('bob', 'sdk.tapCoreChatRoomManager.deleteAllChatRoomMessages', [
        [flow.roomID],
      ])
      expect(cleared).toEqual({ ok: [[flow.roomID]] })
      const history = (who: Who) =>
        inPage(
          who,
          `const c = callback(); sdk.tapCoreMessageManager.getOlderMessagesBeforeTimestamp(arg, 10, c.callback)
           const { ok } = await c.promise; return Object.values(ok[0]).map((m) => m.body)`,
          flow.roomID,
        )
      expect(await history('bob')).toEqual([])
      expect(await history('ann')).toEqual(['Order placed'])
      await users.bob2.page.waitForFunction(`heard.some((h) => h.kind === 'cleared')`, undefined, {
        timeout: 10_000,
      })
      expect(await inPage('bob2', 'return heard.filter((h) => h.kind === "cleared")')).toEqual([
        { kind: 'cleared', roomID: flow.roomID },
      ])
    })

    test('leave and delete: Ann hands the room to Bob and leaves; Bob deletes it', async () => {
      await sdkCall('ann', 'sdk.tapCoreChatRoomManager.promoteGroupAdmins', [flow.roomID, [users.bob.userID]])
      const left = await sdkCall('ann', 'sdk.tapCoreChatRoomManager.leaveGroupChatRoom', [flow.roomID])
      expect(left).toEqual({ ok: [true, 'You left the room'] })
      const gone = await sdkCall('ann', 'sdk.tapCoreChatRoomManager.getGroupChatRoom', [flow.roomID])
      expect(gone.error?.[0]).toBe('40301')
      const deleted = await sdkCall('bob', 'sdk.tapCoreChatRoomManager.deleteGroupChatRoom', [flow.roomID])
      expect(deleted).toEqual({ ok: ['Delete group chat room successfully'] })
      const after = await sdkCall('bob', 'sdk.tapCoreChatRoomManager.getGroupChatRoom', [flow.roomID])
      expect(after.error?.[0]).toBe('40401')
      const byXc = await sdkCall('bob', 'sdk.tapCoreRoomListManager.getRoomByXcID', ['order-42'])
      expect(byXc.error?.[0]).toBe('40401')
    })
  })
}
