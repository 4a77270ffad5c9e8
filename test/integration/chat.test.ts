import { beforeAll, describe, expect, test } from 'vitest'
import type { Message } from '../../src/domain/messages/message.js'
import { useServer } from '../support/app.js'
import { createOrganization, recordEvents, roomHistory, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'

const SEND = '/v1/chat/message/send'
const BEFORE = '/v1/chat/message/list_by_room/before'
const AFTER = '/v1/chat/message/list_by_room/after'
const ROOM_LIST = '/v1/chat/message/room_list_and_unread'

const personalRoomID = (a: string, b: string) => (BigInt(a) < BigInt(b) ? `${a}-${b}` : `${b}-${a}`)
const text = (localID: string, body: string, target: Record<string, string>) => ({
  ...target,
  localID,
  type: 1001,
  body,
})

describeEachDatabase('chat API', (dialect) => {
  const server = useServer(dialect)
  let alice: TestClient
  let bob: TestClient
  let carol: TestClient
  let mallory: TestClient // of another organization

  beforeAll(async () => {
    const acme = await createOrganization(server(), 'Acme')
    // One after the other: their userIDs then grow in this order, which is how a room lists
    // participants who joined in the same millisecond (the test's clock stands still).
    alice = await acme.signIn('alice')
    bob = await acme.signIn('bob')
    carol = await acme.signIn('carol')
    mallory = await (await createOrganization(server(), 'Other')).signIn('mallory')
  })

  const expectError = async (
    reply: Promise<{ status: number; json: { error: unknown } }>,
    status: number,
    code: string,
    message?: string,
  ) => {
    const { status: actual, json } = await reply
    expect(actual).toBe(status)
    expect(json.error).toMatchObject({ code, ...(message ? { message } : {}) })
  }

  describe('users', () => {
    test('get_by_id and get_by_xcuserid find users of the same organization only', async () => {
      const byID = await alice.call('/v1/client/user/get_by_id', { id: bob.userID })
      expect(byID.json.data.user).toMatchObject({ userID: bob.userID, xcUserID: 'bob', fullname: 'User bob' })
      const byXc = await alice.call('/v1/client/user/get_by_xcuserid', { xcUserID: 'bob' })
      expect(byXc.json.data.user).toEqual(byID.json.data.user)
      await expectError(alice.call('/v1/client/user/get_by_id', { id: mallory.userID }), 404, '40401')
      await expectError(alice.call('/v1/client/user/get_by_xcuserid', { xcUserID: 'mallory' }), 404, '40401')
      await expectError(alice.call('/v1/client/user/get_by_id', {}), 400, '40002', "Param 'id' is required")
    })
  })

  describe('personal rooms', () => {
    test('sending to recipientUserID opens the room <smaller>-<larger> for both', async () => {
      const events = recordEvents(server())
      const reply = await alice.call(SEND, text('p-1', 'hello bob', { recipientUserID: bob.userID }))
      expect(reply.status).toBe(200)
      const { message } = reply.json.data
      const roomID = personalRoomID(alice.userID, bob.userID)
      expect(message).toMatchObject({
        localID: 'p-1',
        roomID,
        room: { roomID, name: '', type: 1, imageURL: '' },
        type: 1001,
        body: 'hello bob',
        data: {},
        quote: { title: '', content: '', imageURL: '' },
        replyTo: null,
        user: { userID: alice.userID, xcUserID: 'alice' },
        isDeleted: false,
        isDelivered: false,
        isRead: false,
      })
      const room = (await bob.call('/v1/client/room/get', { roomID })).json.data.room
      expect(room).toMatchObject({ roomID, type: 1 })
      expect([...room.userIDs].sort()).toEqual([alice.userID, bob.userID].sort())
      // Bob answers into the same room by its ID.
      expect((await bob.call(SEND, text('p-2', 'hi alice', { roomID }))).status).toBe(200)

      const sent = events.named('chat/sendMessage')
      expect(sent).toHaveLength(2)
      expect([...(sent[0]?.userIDs ?? [])].sort()).toEqual([alice.userID, bob.userID].sort())
      expect(sent[0]?.event.data).toEqual(message)
      events.stop()
    })

    test('others cannot read it: same organization 40301, other organization 40401', async () => {
      const roomID = personalRoomID(alice.userID, bob.userID)
      await expectError(carol.call('/v1/client/room/get', { roomID }), 403, '40301')
      await expectError(carol.call(BEFORE, { roomID }), 403, '40301')
      await expectError(carol.call(SEND, text('c-1', 'let me in', { roomID })), 403, '40301')
      await expectError(mallory.call('/v1/client/room/get', { roomID }), 404, '40401')
      await expectError(
        mallory.call(SEND, text('m-1', 'hi', { recipientUserID: alice.userID })),
        404,
        '40401',
      )
    })

    test('a personal room is addressed by its ID before its first message too', async () => {
      const pairs = await createOrganization(server(), 'Pairs')
      const [dave, erin] = (await Promise.all([pairs.signIn('dave'), pairs.signIn('erin')])) as [
        TestClient,
        TestClient,
      ]
      const roomID = personalRoomID(dave.userID, erin.userID)
      const reply = await dave.call(SEND, text('first', 'hi erin', { roomID }))
      expect(reply.json.data.message).toMatchObject({ roomID, room: { type: 1 }, body: 'hi erin' })
      expect((await erin.call('/v1/client/room/get', { roomID })).json.data.room.userIDs.sort()).toEqual(
        [dave.userID, erin.userID].sort(),
      )
      // Only its own two users open it, and only in its canonical form.
      await expectError(carol.call(SEND, text('c-2', 'me too', { roomID })), 404, '40401')
      const [low, high] = roomID.split('-')
      const reversed = `${high}-${low}`
      await expectError(dave.call(SEND, text('rev', 'hi', { roomID: reversed })), 404, '40401')
    })

    test('a personal room has fixed participants', async () => {
      const roomID = personalRoomID(alice.userID, bob.userID)
      await expectError(
        alice.call('/v1/client/room/participants/add', { roomID, userIDs: [carol.userID] }),
        400,
        '40002',
        "Param 'roomID' must be a group room",
      )
      await expectError(alice.call(SEND, text('self', 'me', { recipientUserID: alice.userID })), 400, '40002')
    })
  })

  describe('group rooms', () => {
    test('create, add, remove and leave', async () => {
      const created = await alice.call('/v1/client/room/create', {
        name: 'Team',
        type: 2,
        userIDs: [bob.userID],
      })
      expect(created.status).toBe(200)
      const { room } = created.json.data
      expect(room).toMatchObject({ name: 'Team', type: 2, imageURL: '' })
      expect(room.roomID).toMatch(/^\d+$/)
      expect(room.userIDs).toEqual([alice.userID, bob.userID])

      await expectError(carol.call('/v1/client/room/get', { roomID: room.roomID }), 403, '40301')
      const added = await alice.call('/v1/client/room/participants/add', {
        roomID: room.roomID,
        userIDs: [carol.userID],
      })
      expect(added.json.data.room.userIDs).toEqual([alice.userID, bob.userID, carol.userID])
      expect((await carol.call('/v1/client/room/get', { roomID: room.roomID })).status).toBe(200)

      const removed = await alice.call('/v1/client/room/participants/remove', {
        roomID: room.roomID,
        userIDs: [bob.userID],
      })
      expect(removed.json.data.room.userIDs).toEqual([alice.userID, carol.userID])
      await expectError(bob.call('/v1/client/room/get', { roomID: room.roomID }), 403, '40301')

      expect((await carol.call('/v1/client/room/leave', { roomID: room.roomID })).json.data).toEqual({})
      await expectError(carol.call(SEND, text('gone', 'x', { roomID: room.roomID })), 403, '40301')
    })

    test('members must be users of the organization; type must be 2', async () => {
      await expectError(
        alice.call('/v1/client/room/create', { name: 'X', type: 2, userIDs: [mallory.userID] }),
        404,
        '40401',
      )
      await expectError(
        alice.call('/v1/client/room/create', { name: 'X', type: 1, userIDs: [] }),
        400,
        '40002',
        "Param 'type' must be one of: 2",
      )
      await expectError(
        alice.call('/v1/client/room/create', { name: 'X', type: 2, userIDs: 'bob' }),
        400,
        '40002',
        "Param 'userIDs' must be a list of IDs",
      )
    })
  })

  describe('send', () => {
    test('checks its parameters', async () => {
      const to = { recipientUserID: bob.userID }
      const cases: [Record<string, unknown>, string, string][] = [
        [{ localID: 'v', type: 1001, body: 'x' }, 'roomID', "Param 'roomID' is required"],
        [{ ...to, type: 1001, body: 'x' }, 'localID', "Param 'localID' is required"],
        [{ ...to, localID: 'v', body: 'x' }, 'type', "Param 'type' is required"],
        [
          { ...to, localID: 'v', type: 9001, body: 'x' },
          'type',
          "Param 'type' must be one of: 1001, 1002, 1003, 1004, 1005, 1008, 1010",
        ],
        [{ ...to, localID: 'v', type: 1001, body: '  ' }, 'body', "Param 'body' is required"],
        [
          { ...to, localID: 'v', type: 1001, body: 'x'.repeat(20_001) },
          'body',
          "Param 'body' must be at most 20000 characters",
        ],
        [{ ...to, localID: 'v', type: 1002, body: 'cap' }, 'data.url', "Param 'data.url' is required"],
        [
          { ...to, localID: 'v', type: 1002, data: { url: 'ftp://x' } },
          'data.url',
          "Param 'data.url' is invalid",
        ],
        [
          { ...to, localID: 'v', type: 1004, data: { url: 'https://x.example/a.pdf' } },
          'data.fileName',
          "Param 'data.fileName' is required",
        ],
        [
          { ...to, localID: 'v', type: 1005, data: { latitude: 91, longitude: 0 } },
          'data.latitude',
          "Param 'data.latitude' is invalid",
        ],
        [{ ...to, localID: 'v', type: 1001, body: 'x', data: [] }, 'data', "Param 'data' must be an object"],
        [
          { ...to, localID: 'v', type: 1001, body: 'x', replyTo: '1' },
          'replyTo',
          "Param 'replyTo' is invalid",
        ],
      ]
      for (const [body, field, message] of cases) {
        const reply = await alice.call(SEND, body)
        expect(reply.json, message).toEqual({
          status: 400,
          error: { code: '40002', message, field },
          data: {},
        })
      }
    })

    test('stores every client type with its data, quotes and replies', async () => {
      const to = { recipientUserID: carol.userID }
      const first = (await alice.call(SEND, text('t-1', 'first', to))).json.data.message
      const sent = await Promise.all(
        [
          { localID: 't-img', type: 1002, body: 'a cat', data: { url: 'https://cdn.example.com/cat.png' } },
          { localID: 't-vid', type: 1003, data: { url: 'https://cdn.example.com/cat.mp4' } },
          { localID: 't-doc', type: 1004, data: { url: 'https://cdn.example.com/a.pdf', fileName: 'a.pdf' } },
          {
            localID: 't-loc',
            type: 1005,
            data: { latitude: 51.5, longitude: -0.12, address: 'London', name: 'Office' },
          },
          {
            localID: 't-re',
            type: 1001,
            body: 'as I said',
            replyTo: first.messageID,
            quote: { title: 'Alice', content: 'first' },
          },
        ].map((body) => alice.call(SEND, { ...to, ...body })),
      )
      expect(sent.map((r) => r.status)).toEqual([200, 200, 200, 200, 200])
      const [image, , file, location, reply] = sent.map((r) => r.json.data.message)
      expect(image).toMatchObject({
        type: 1002,
        body: 'a cat',
        data: { url: 'https://cdn.example.com/cat.png' },
      })
      expect(file.data).toEqual({ url: 'https://cdn.example.com/a.pdf', fileName: 'a.pdf' })
      expect(location.data).toEqual({ latitude: 51.5, longitude: -0.12, address: 'London', name: 'Office' })
      expect(reply).toMatchObject({
        replyTo: first.messageID,
        quote: { title: 'Alice', content: 'first', imageURL: '' },
      })
    })

    test('20 parallel sends with one localID store one message, announce it each time, and leave it last in the room', async () => {
      const events = recordEvents(server())
      const body = text('same-local-id', 'only once', { recipientUserID: bob.userID })
      const replies = await Promise.all(Array.from({ length: 20 }, () => alice.call(SEND, body)))
      expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200))
      const messageIDs = new Set(replies.map((r) => r.json.data.message.messageID))
      expect(messageIDs.size).toBe(1)
      const rows = await server()
        .testDatabase.database.db.selectFrom('messages')
        .select('id')
        .where('sender_id', '=', alice.userID)
        .where('local_id', '=', 'same-local-id')
        .execute()
      expect(rows).toHaveLength(1)
      // The room holds it once, for both participants.
      const roomID = replies[0]?.json.data.message.roomID
      const historyIDs = async (reader: TestClient) =>
        (await roomHistory(reader, roomID)).map((m) => m.messageID)
      const history = await roomHistory(bob, roomID)
      const sameLocalID = history.filter((m) => m.localID === 'same-local-id')
      expect(sameLocalID.map((m) => m.messageID)).toEqual([rows[0]?.id])
      const before = history.map((m) => m.messageID)
      expect(await historyIDs(alice)).toEqual(before)
      // The losers' transactions stored nothing, and took nothing from the room's last message.
      const entry = (await bob.call(ROOM_LIST)).json.data.rooms.find(
        (r: { room: { roomID: string } }) => r.room.roomID === roomID,
      )
      expect(entry.lastMessage?.messageID).toBe(rows[0]?.id)
      // Every send announces (one may be a retry whose first announcement died with an
      // instance); clients drop the repeats by messageID.
      const announced = events.named('chat/sendMessage')
      expect(announced).toHaveLength(20)
      expect(new Set(announced.map((e) => (e.event.data as { messageID: string }).messageID))).toEqual(
        messageIDs,
      )
      // A later retry is answered from storage, announced again to the room, and adds nothing to it.
      expect((await alice.call(SEND, body)).json.data.message.messageID).toBe(rows[0]?.id)
      const retried = events.named('chat/sendMessage').slice(20)
      expect(retried.map((e) => [(e.event.data as { messageID: string }).messageID, e.userIDs])).toEqual([
        [rows[0]?.id, expect.arrayContaining([alice.userID, bob.userID])],
      ])
      expect(await historyIDs(bob)).toEqual(before)
      events.stop()
    })
  })

  describe('history', () => {
    test('500 messages sent at once page back with before and after, nothing skipped or repeated', async () => {
      const room = (
        await alice.call('/v1/client/room/create', { name: 'Busy', type: 2, userIDs: [bob.userID] })
      ).json.data.room
      const total = 500
      // The test clock stands still: `created` must still strictly increase.
      for (let batch = 0; batch < total; batch += 50) {
        const replies = await Promise.all(
          Array.from({ length: 50 }, (_, i) => {
            const sender = (batch + i) % 2 === 0 ? alice : bob
            return sender.call(SEND, text(`h-${batch + i}`, `message ${batch + i}`, { roomID: room.roomID }))
          }),
        )
        expect(replies.every((r) => r.status === 200)).toBe(true)
      }

      const backwards: { created: number; messageID: string }[] = []
      let maxCreated: number | undefined
      for (;;) {
        const { messages, hasMore } = (await bob.call(BEFORE, { roomID: room.roomID, maxCreated, limit: 37 }))
          .json.data
        backwards.unshift(...messages)
        if (!hasMore) break
        maxCreated = messages[0].created
      }
      const forwards: { created: number; messageID: string }[] = []
      let minCreated: number | undefined
      for (;;) {
        const { messages, hasMore } = (
          await alice.call(AFTER, { roomID: room.roomID, minCreated, limit: 41 })
        ).json.data
        forwards.push(...messages)
        if (!hasMore) break
        minCreated = messages.at(-1).created
      }

      expect(backwards).toHaveLength(total)
      expect(forwards.map((m) => m.messageID)).toEqual(backwards.map((m) => m.messageID))
      expect(new Set(forwards.map((m) => m.messageID)).size).toBe(total)
      for (let i = 1; i < total; i++) {
        expect(forwards[i]?.created).toBeGreaterThan(forwards[i - 1]?.created as number)
      }
      // maxCreated 0 means the latest, as an absent one does.
      const latest = (await bob.call(BEFORE, { roomID: room.roomID, maxCreated: 0, limit: 5 })).json.data
      expect(latest.messages.map((m: { messageID: string }) => m.messageID)).toEqual(
        backwards.slice(-5).map((m) => m.messageID),
      )
      expect(latest.hasMore).toBe(true)
    })

    test('limit and bounds are checked', async () => {
      const roomID = personalRoomID(alice.userID, bob.userID)
      await expectError(
        alice.call(BEFORE, { roomID, limit: 0 }),
        400,
        '40002',
        "Param 'limit' must be between 1 and 100",
      )
      await expectError(
        alice.call(AFTER, { roomID, minCreated: 'x' }),
        400,
        '40002',
        "Param 'minCreated' must be a number",
      )
      await expectError(alice.call(AFTER, {}), 400, '40002', "Param 'roomID' is required")
    })
  })

  describe('unread counts and receipts', () => {
    test('move as the recipient reads', async () => {
      const shop = await createOrganization(server(), 'Shop')
      const [dave, erin] = await Promise.all([shop.signIn('dave'), shop.signIn('erin')])
      const roomID = personalRoomID(dave.userID, erin.userID)
      const sent = []
      for (const n of [1, 2, 3]) {
        sent.push(
          (await dave.call(SEND, text(`u-${n}`, `note ${n}`, { recipientUserID: erin.userID }))).json.data
            .message,
        )
      }
      const unread = async (client: TestClient) =>
        (await client.call(ROOM_LIST)).json.data.rooms.find(
          (r: { room: { roomID: string } }) => r.room.roomID === roomID,
        )

      expect(await unread(erin)).toMatchObject({
        unreadCount: 3,
        lastMessage: { messageID: sent[2].messageID },
      })
      expect(await unread(dave)).toMatchObject({ unreadCount: 0 })

      const events = recordEvents(server())
      expect(
        (await erin.call('/v1/chat/message/feedback/delivered', { messageIDs: [sent[2].messageID] })).status,
      ).toBe(200)
      let history = (await dave.call(AFTER, { roomID })).json.data.messages
      expect(history.map((m: { isDelivered: boolean }) => m.isDelivered)).toEqual([true, true, true])
      expect(history.map((m: { isRead: boolean }) => m.isRead)).toEqual([false, false, false])
      expect((await unread(erin)).unreadCount).toBe(3)

      await erin.call('/v1/chat/message/feedback/read', { messageIDs: [sent[1].messageID] })
      history = (await dave.call(AFTER, { roomID })).json.data.messages
      expect(history.map((m: { isRead: boolean }) => m.isRead)).toEqual([true, true, false])
      expect((await unread(erin)).unreadCount).toBe(1)

      // Receipts never move back.
      await erin.call('/v1/chat/message/feedback/read', { messageIDs: [sent[0].messageID] })
      expect((await unread(erin)).unreadCount).toBe(1)

      // Each receipt told both participants how its messages look now (even one that moved nothing).
      const updates = events.named('chat/updateMessage').map(({ event, userIDs }) => {
        const { messageID, isDelivered, isRead } = event.data as Message
        return { messageID, isDelivered, isRead, userIDs: [...userIDs].sort() }
      })
      const both = [dave.userID, erin.userID].sort()
      expect(updates).toEqual([
        { messageID: sent[2].messageID, isDelivered: true, isRead: false, userIDs: both },
        { messageID: sent[1].messageID, isDelivered: true, isRead: true, userIDs: both },
        { messageID: sent[0].messageID, isDelivered: true, isRead: true, userIDs: both },
      ])
      events.stop()

      // An empty list marks nothing, and is not an error.
      const before = await unread(erin)
      for (const kind of ['read', 'delivered']) {
        const reply = await erin.call(`/v1/chat/message/feedback/${kind}`, { messageIDs: [] })
        expect([reply.status, reply.json.data]).toEqual([200, {}])
      }
      expect(await unread(erin)).toEqual(before)

      await expectError(dave.call('/v1/chat/message/feedback/read', { messageIDs: ['424242'] }), 404, '40401')
      await expectError(
        alice.call('/v1/chat/message/feedback/read', { messageIDs: [sent[0].messageID] }),
        404,
        '40401',
      )
    })

    test('the room list holds only the rooms one is in', async () => {
      const rooms = (await carol.call(ROOM_LIST)).json.data.rooms
      for (const entry of rooms) expect(entry.room.userIDs).toContain(carol.userID)
      expect(rooms.map((r: { room: { roomID: string } }) => r.room.roomID)).not.toContain(
        personalRoomID(alice.userID, bob.userID),
      )
    })
  })

  describe('delete', () => {
    test("erases one's own messages, refuses others'", async () => {
      const roomID = personalRoomID(alice.userID, bob.userID)
      const mine = (await alice.call(SEND, text('d-1', 'oops', { roomID }))).json.data.message
      const theirs = (await bob.call(SEND, text('d-2', 'keep', { roomID }))).json.data.message
      const events = recordEvents(server())

      await expectError(
        alice.call('/v1/chat/message/delete', { roomID, messageIDs: [theirs.messageID] }),
        403,
        '40301',
      )
      expect(
        (await alice.call('/v1/chat/message/delete', { roomID, messageIDs: [mine.messageID] })).status,
      ).toBe(200)
      const page = (await bob.call(AFTER, { roomID, minCreated: mine.created - 1 })).json.data.messages
      expect(page[0]).toMatchObject({ messageID: mine.messageID, isDeleted: true, body: '', data: {} })
      expect(page[1]).toMatchObject({ messageID: theirs.messageID, isDeleted: false, body: 'keep' })
      expect(events.named('chat/updateMessage')[0]?.event.data).toMatchObject({
        messageID: mine.messageID,
        isDeleted: true,
      })
      events.stop()
    })
  })
})
