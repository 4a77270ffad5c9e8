import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { hasChromium } from '../support/browser.js'
import { dialects } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { type SDKUsers, sdkUsers } from '../support/taptalk-browser.js'
import { wav } from '../support/uploads.js'

// The TapTalk.io web SDK, unmodified, in Chromium: its scheduled messages, link and voice messages,
// read details, shared content and reports, each through the SDK's own public functions, and what
// the other user sees. The steps are one flow in one group room.

const MINUTE = 60_000

for (const dialect of dialects) {
  describe.skipIf(!hasChromium).sequential(`TapTalk.io web SDK: more of its paths [${dialect}]`, () => {
    let server: TestServer
    let sdk: SDKUsers
    let room: {
      roomID: string
      name: string
      type: number
      imageURL: { thumbnail: string; fullsize: string }
    }
    const flow = { linkID: '' }
    /** The SDK's message model of a text, as its apps build one. */
    const model = `sdk.tapCoreMessageManager.constructTapTalkMessageModel(arg.text, arg.room, 1001, "")`
    const bodiesOf = async (who: string) =>
      (await sdk.inPage(
        who,
        'return heard.filter((h) => h.kind === "new").map((h) => h.message.body)',
      )) as string[]

    beforeAll(async () => {
      server = await startServer(dialect)
      sdk = await sdkUsers(server, ['ann', 'bob'])
      const { userIDs } = sdk
      const group = await server.app.services.rooms.createGroupIn(sdk.org.organizationID, {
        name: 'Team',
        userIDs: [userIDs.ann as string, userIDs.bob as string],
      })
      room = { roomID: group.roomID, name: 'Team', type: 2, imageURL: { thumbnail: '', fullsize: '' } }
    }, 60_000)
    afterAll(async () => {
      await sdk?.close()
      if (server) await stopServer(server)
    })

    test('scheduled: created, listed, its text and time changed, then sent at its time to the other user', async () => {
      const created = await sdk.inPage(
        'ann',
        `const c = callback(); sdk.tapCoreMessageManager.createScheduledMessage(${model}, arg.at, c.callback); return c.promise`,
        { text: 'Meeting at 5', room, at: Date.now() + 10 * MINUTE },
      )
      const { id } = created.ok[0].scheduled
      const listed = await sdk.inPage(
        'ann',
        'const c = callback(); sdk.tapCoreMessageManager.fetchScheduledMessages(arg, c.callback); return c.promise',
        room.roomID,
      )
      expect(listed.ok[0]).toMatchObject([{ id, message: { body: 'Meeting at 5' } }])
      const edited = await sdk.inPage(
        'ann',
        `const c = callback(); sdk.tapCoreMessageManager.editScheduledMessageContent(arg.id, ${model}, c.callback); return c.promise`,
        { id, text: 'Meeting at 6', room },
      )
      expect(edited.ok[0].scheduled.message.body).toEqual(expect.any(String))
      const moved = await sdk.inPage(
        'ann',
        'const c = callback(); sdk.tapCoreMessageManager.editScheduledMessageTime(arg.id, arg.at, c.callback); return c.promise',
        { id, at: server.clock.now() + 2 * MINUTE },
      )
      expect(moved.ok[0].scheduled.status).toBe('pending')
      expect(await bodiesOf('bob')).not.toContain('Meeting at 6')
      server.clock.advance(3 * MINUTE)
      await server.app.scheduler.sendDue()
      const received = await sdk.heard('bob', `h.kind === 'new' && h.message.body === 'Meeting at 6'`)
      expect(received.message).toMatchObject({ room: { roomID: room.roomID }, user: { xcUserID: 'ann' } })
    })

    test('scheduled: sent now, and cancelled', async () => {
      const schedule = (text: string) =>
        sdk.inPage(
          'ann',
          `const c = callback(); sdk.tapCoreMessageManager.createScheduledMessage(${model}, arg.at, c.callback); return c.promise`,
          { text, room, at: Date.now() + 10 * MINUTE },
        )
      const now = (await schedule('right now')).ok[0].scheduled.id
      const never = (await schedule('never')).ok[0].scheduled.id
      const sent = await sdk.inPage(
        'ann',
        'const c = callback(); sdk.tapCoreMessageManager.sendScheduledMessageNow([arg.id], arg.roomID, c.callback); return c.promise',
        { id: now, roomID: room.roomID },
      )
      expect(sent.ok[0].messages).toHaveLength(1)
      await sdk.heard('bob', `h.kind === 'new' && h.message.body === 'right now'`)
      const cancelled = await sdk.inPage(
        'ann',
        'const c = callback(); sdk.tapCoreMessageManager.deleteScheduledMessage([arg.id], arg.roomID, c.callback); return c.promise',
        { id: never, roomID: room.roomID },
      )
      expect(cancelled.ok[0].items).toMatchObject([{ id: never, status: 'cancelled' }])
      server.clock.advance(11 * MINUTE)
      await server.app.scheduler.sendDue()
      const stored = await server.app.database.db
        .selectFrom('messages')
        .select('body')
        .where('body', '=', 'never')
        .execute()
      expect(stored).toEqual([])
    })

    test('a link message and a voice note reach the other user as sent', async () => {
      await sdk.inPage(
        'ann',
        `sdk.tapCoreMessageManager.sendLinkMessage('see https://example.com', arg, () => {}, ['https://example.com'],
           'Example', 'An example page', 'https://example.com/i.png', 'Example site', 'website')`,
        room,
      )
      const link = await sdk.heard('bob', `h.kind === 'new' && h.message.type === 1010`)
      expect(link.message.data).toMatchObject({
        url: 'https://example.com',
        title: 'Example',
        description: 'An example page',
      })
      flow.linkID = link.message.messageID
      const voice = await sdk.inPage(
        'ann',
        `const bytes = Uint8Array.from(atob(arg.wav), (c) => c.charCodeAt(0))
         const file = new File([bytes], 'note.wav', { type: 'audio/wav' })
         const c = callback()
         sdk.tapCoreMessageManager.sendVoiceMessage(file, 1500, arg.room, { ...c.callback, onStart() {}, onProgress() {} })
         return c.promise`,
        { wav: wav(12_000).toString('base64'), room },
      )
      expect(voice.ok?.[0]?.data).toMatchObject({ mediaType: 'audio/wav', duration: 1500 })
      const note = await sdk.heard('bob', `h.kind === 'new' && h.message.type === 1008`)
      expect(note.message.data).toMatchObject({ fileName: 'note.wav', duration: 1500 })
    })

    test('read details and the read count of a message in the group', async () => {
      await sdk.inPage('bob', 'sdk.tapCoreMessageManager.markMessageAsRead([arg])', flow.linkID)
      await sdk.heard(
        'ann',
        `h.kind === 'update' && h.message.messageID === '${flow.linkID}' && h.message.isRead`,
      )
      const details = await sdk.inPage(
        'ann',
        'const c = callback(); sdk.tapCoreMessageManager.fetchMessageInfo(arg, c.callback); return c.promise',
        flow.linkID,
      )
      expect(details.ok[0]).toMatchObject({ readCount: 1, readBy: [{ xcUserID: 'bob' }] })
      const count = await sdk.inPage(
        'ann',
        'const c = callback(); sdk.tapCoreMessageManager.fetchTotalReadCount(arg, c.callback); return c.promise',
        flow.linkID,
      )
      expect(count).toEqual({ ok: [1] })
    })

    test("the room's shared content: its link and voice note", async () => {
      const shared = await sdk.inPage(
        'bob',
        `const c = callback(); sdk.tapCoreMessageManager.fetchSharedContentMessages(arg, 0, 0, 'DESC', c.callback); return c.promise`,
        room.roomID,
      )
      const [media, files, links] = shared.ok
      expect(media).toEqual([])
      expect(files).toMatchObject([{ type: 1008, data: { duration: 1500 } }])
      expect(links).toMatchObject([{ type: 1010, data: { title: 'Example' } }])
    })

    test('reports of a message and of a user reach the admins’ queue', async () => {
      const message = await sdk.inPage(
        'bob',
        'const c = callback(); sdk.tapCoreContactManager.reportMessage(arg.id, arg.roomID, "spam", false, "unwanted link", c.callback); return c.promise',
        { id: flow.linkID, roomID: room.roomID },
      )
      expect(message.ok[0]).toMatchObject({ reportID: expect.any(String) })
      const user = await sdk.inPage(
        'bob',
        'const c = callback(); sdk.tapCoreContactManager.reportUser(arg, "other", true, "keeps messaging me", c.callback); return c.promise',
        sdk.userIDs.ann,
      )
      expect(user.ok[0]).toMatchObject({ reportID: expect.any(String) })
      const queue = await server.app.services.moderation.list(operator, sdk.org.organizationID, {
        status: 'open',
      })
      expect(queue.reports).toMatchObject([
        { reportedUser: { xcUserID: 'ann' }, messageID: null, reason: 'keeps messaging me' },
        { reportedUser: { xcUserID: 'ann' }, messageID: flow.linkID, category: 'spam' },
      ])
    })
  })
}
