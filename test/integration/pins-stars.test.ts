import { beforeAll, expect, test } from 'vitest'
import { useServer } from '../support/app.js'
import { createOrganization, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect } from '../support/sockets.js'

// Pins (any participant, per room, live) and stars (each user's own, private, across rooms):
// docs/reference/client-api.md#pins and #stars.
describeEachDatabase('pins and stars', (dialect) => {
  const server = useServer(dialect)
  let alice: TestClient
  let bob: TestClient
  let carol: TestClient
  let roomID: string
  let org: Awaited<ReturnType<typeof createOrganization>>

  beforeAll(async () => {
    org = await createOrganization(server(), 'Pins')
    alice = await org.signIn('alice')
    bob = await org.signIn('bob')
    carol = await org.signIn('carol')
    const room = await alice.call('/v1/client/room/create', {
      name: 'Team',
      type: 2,
      userIDs: [bob.userID, carol.userID],
    })
    roomID = room.json.data.room.roomID
  })

  const send = async (body: string, to = roomID) => {
    const reply = await alice.call('/v1/chat/message/send', { roomID: to, localID: body, type: 1001, body })
    return reply.json.data.message.messageID as string
  }

  test('any participant pins; everyone sees it live, in the list and after a resync', async () => {
    const [one, two] = [await send('pin one'), await send('pin two')]
    const aliceSocket = await connect(server().url, alice.accessToken)
    await alice.call('/v1/chat/message/room_list_and_unread', {})
    server().clock.advance(1)
    const pinned = await bob.call('/v1/chat/message/pin', { roomID, messageIDs: [one] })
    expect(pinned.json.data.messages[0]).toMatchObject({ messageID: one, isPinned: true })
    server().clock.advance(1)
    await bob.call('/v1/chat/message/pin', { roomID, messageIDs: [two] })
    const frames = await aliceSocket.waitFor('chat/updateMessage', 2)
    expect(frames.map((f) => [f.data.messageID, f.data.isPinned])).toEqual([
      [one, true],
      [two, true],
    ])
    await aliceSocket.close()
    const ids = await carol.call('/v1/chat/message/get_pinned_ids', { roomID })
    expect(ids.json.data.pinnedMessageIDs).toEqual([two, one])
    const list = await carol.call('/v1/chat/message/get_pinned_list', { roomID, pageNumber: 1, pageSize: 1 })
    expect(list.json.data.messages.map((m: { messageID: string }) => m.messageID)).toEqual([two])
    expect(list.json.data.hasMore).toBe(true)
    const resync = await alice.call('/v1/chat/message/new_and_updated', {})
    expect(
      resync.json.data.messages.map((m: { messageID: string; isPinned: boolean }) => [
        m.messageID,
        m.isPinned,
      ]),
    ).toEqual([
      [one, true],
      [two, true],
    ])
    await carol.call('/v1/chat/message/unpin', { roomID, messageIDs: [one] })
    const after = await alice.call('/v1/chat/message/get_pinned_ids', { roomID })
    expect(after.json.data.pinnedMessageIDs).toEqual([two])
  })

  test('pinning in a room you left, and other bad pins, get the documented errors', async () => {
    const messageID = await send('after carol left')
    const room = await alice.call('/v1/client/room/create', {
      name: 'Left',
      type: 2,
      userIDs: [carol.userID],
    })
    const leftRoomID = room.json.data.room.roomID
    const inLeft = await send('in the left room', leftRoomID)
    await carol.call('/v1/client/room/leave', { roomID: leftRoomID })
    const left = await carol.call('/v1/chat/message/pin', { roomID: leftRoomID, messageIDs: [inLeft] })
    expect([left.status, left.json.error.code]).toEqual([403, '40301'])
    const elsewhere = await alice.call('/v1/chat/message/pin', {
      roomID: leftRoomID,
      messageIDs: [messageID],
    })
    expect([elsewhere.status, elsewhere.json.error.code]).toEqual([404, '40401'])
    const none = await alice.call('/v1/chat/message/pin', { roomID, messageIDs: [] })
    expect(none.json.error.code).toBe('40002')
  })

  test("pins racing for the last of a room's 50 places: one gets it, the others 409/40902", async () => {
    const room = await alice.call('/v1/client/room/create', { name: 'Full', type: 2, userIDs: [bob.userID] })
    const fullRoomID = room.json.data.room.roomID
    const messageIDs: string[] = []
    for (let i = 0; i < 57; i++) messageIDs.push(await send(`full ${i}`, fullRoomID))
    const pin = (client: TestClient, ids: string[]) =>
      client.call('/v1/chat/message/pin', { roomID: fullRoomID, messageIDs: ids })
    expect((await pin(alice, messageIDs.slice(0, 49))).status).toBe(200)
    // The last place, asked for by eight at once (each its own message).
    const racing = await Promise.all(
      messageIDs.slice(49).map((id, i) => pin(i % 2 === 0 ? alice : bob, [id])),
    )
    expect(racing.map((r) => r.status).sort()).toEqual([200, ...Array(7).fill(409)])
    for (const refused of racing.filter((r) => r.status === 409))
      expect(refused.json.error.code).toBe('40902')
    const ids = await bob.call('/v1/chat/message/get_pinned_ids', { roomID: fullRoomID })
    expect(ids.json.data.pinnedMessageIDs).toHaveLength(50)
  })

  test('stars are private, listed per room and across rooms, and heard on your other devices', async () => {
    const here = await send('star here')
    const room = await alice.call('/v1/client/room/create', { name: 'Other', type: 2, userIDs: [bob.userID] })
    const otherRoomID = room.json.data.room.roomID
    const there = await send('star there', otherRoomID)
    // Bob's phone: another session of his.
    const bobPhone = await org.signIn('bob')
    const bobSocket = await connect(server().url, bobPhone.accessToken)
    server().clock.advance(1)
    await bob.call('/v1/chat/message/star', { roomID, messageIDs: [here] })
    server().clock.advance(1)
    await bob.call('/v1/chat/message/star', { roomID: otherRoomID, messageIDs: [there] })
    const [heard] = await bobSocket.waitFor('chat/starred')
    expect(heard.data).toEqual({ roomID, messageIDs: [here], isStarred: true })
    await bobSocket.close()
    const ids = await bob.call('/v1/chat/message/get_starred_ids', { roomID })
    expect(ids.json.data.messageIDs).toEqual([here])
    const all = await bob.call('/v1/chat/message/get_starred_list', {})
    expect(all.json.data.messages.map((m: { messageID: string }) => m.messageID)).toEqual([there, here])
    const alices = await alice.call('/v1/chat/message/get_starred_ids', { roomID })
    expect(alices.json.data.messageIDs).toEqual([])
    await bob.call('/v1/chat/message/unstar', { roomID, messageIDs: [here] })
    const inRoom = await bob.call('/v1/chat/message/get_starred_list', { roomID })
    expect(inRoom.json.data.messages).toEqual([])
    const foreign = await carol.call('/v1/chat/message/star', { roomID: otherRoomID, messageIDs: [there] })
    expect(foreign.json.error.code).toBe('40301')
  })
})
