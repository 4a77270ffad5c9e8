import { afterAll, beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import { dataOf, sendText } from '../support/client-calls.js'
import { createOrganization, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect, type TestSocket } from '../support/sockets.js'

// Each user's own state of their rooms (docs/reference/client-api.md, "Your rooms' state"): mute,
// pin, mark as unread. It shows in the room list, reaches the user's other devices at once
// (`room/state`), and a muted room says so in `message.new` (no push for that recipient).
describeEachDatabase('room state', (dialect) => {
  const server = useServer(dialect, {}, { delivery: { jitter: () => 0 } })
  let backend: Awaited<ReturnType<typeof startBot>>
  let org: Awaited<ReturnType<typeof createOrganization>>
  let ann: TestClient
  let annPhone: TestClient
  let ben: TestClient
  let groupID: string
  let personalID: string
  let phone: TestSocket
  let laptop: TestSocket

  beforeAll(async () => {
    backend = await startBot(() => 200)
    org = await createOrganization(server(), 'Room state')
    ann = await org.signIn('ann')
    // ann's second device: another session of the same user.
    annPhone = await org.signIn('ann')
    ben = await org.signIn('ben')
    groupID = (await data(ann, '/v1/client/room/create', { name: 'G', type: 2, userIDs: [ben.userID] })).room
      .roomID
    personalID = (await send(ben, { recipientUserID: ann.userID }, 'hello')).json.data.message.roomID
    laptop = await connect(server().url, ann.accessToken)
    phone = await connect(server().url, annPhone.accessToken)
  })
  afterAll(async () => {
    await laptop?.close()
    await phone?.close()
    await backend?.close()
  })

  const data = dataOf
  const send = sendText
  const stateInList = async (client: TestClient, roomID: string) =>
    (await data(client, '/v1/chat/message/room_list_and_unread')).rooms.find(
      (r: { room: { roomID: string } }) => r.room.roomID === roomID,
    ).state
  /** The room/state frames a socket got before ben's next marker message in the group. */
  let markers = 0
  const checked = new Map<TestSocket, number>()
  const statesBeforeMarker = async (socket: TestSocket) => {
    const body = `marker ${++markers}`
    await send(ben, { roomID: groupID }, body)
    const frames = await socket.framesThrough((f) => f.data?.body === body)
    const since = checked.get(socket) ?? 0
    checked.set(socket, frames.length)
    return frames
      .slice(since)
      .filter((f) => f.eventName === 'room/state')
      .map((f) => f.data)
  }

  test('mute: in the list and the room list, on the other device at once, not the one that did it', async () => {
    const { rooms } = await data(ann, '/v1/client/room/mute', { roomIDs: [groupID] })
    const muted = {
      roomID: groupID,
      muted: true,
      mutedUntil: 0,
      pinned: false,
      pinnedAt: 0,
      markedUnread: false,
    }
    expect(rooms).toEqual([muted])
    expect(await statesBeforeMarker(phone)).toEqual([muted])
    expect(await statesBeforeMarker(laptop)).toEqual([])
    expect(await data(annPhone, '/v1/client/room/get_muted_room_ids')).toEqual({
      mutedRooms: [{ roomID: groupID, expiredAt: 0 }],
    })
    expect(await stateInList(ann, groupID)).toEqual(muted)
    // ben's state of the same room is his own.
    expect((await stateInList(ben, groupID)).muted).toBe(false)
    const until = Date.now() + 3_600_000
    const later = await data(ann, '/v1/client/room/mute', { roomIDs: [personalID], expiredAt: until })
    expect(later.rooms[0]).toMatchObject({ muted: true, mutedUntil: until })
    await data(ann, '/v1/client/room/unmute', { roomIDs: [personalID] })
    expect((await stateInList(ann, personalID)).muted).toBe(false)
  })

  test('message.new says which recipients muted the room', async () => {
    const admin = await signInAgent(server(), org.organizationID, 'admin@example.com', { role: 'admin' })
    const url = `${backend.origin}/events`
    expect(
      (await admin.call('/admin/event_endpoint/create', { url, eventTypes: ['message.new'] })).status,
    ).toBe(200)
    const before = backend.requests.length
    await send(ben, { roomID: groupID }, 'muted for ann')
    await send(ben, { roomID: personalID }, 'not muted')
    await server().app.delivery.drain()
    const events = backend.requests
      .slice(before)
      .map((r) => (r.json as { data: { recipients: unknown } }).data)
    expect(events.map((e) => e.recipients)).toEqual([
      [{ userID: ann.userID, xcUserID: 'ann', online: true, muted: true }],
      [{ userID: ann.userID, xcUserID: 'ann', online: true, muted: false }],
    ])
  })

  test('pin: last pinned first, in the room list; at most 10', async () => {
    await data(ann, '/v1/client/room/pin', { roomIDs: [personalID] })
    await data(ann, '/v1/client/room/pin', { roomIDs: [groupID] })
    // Last pinned first (two pins in the same millisecond may come either way).
    const { pinnedRoomIDs } = await data(ann, '/v1/client/room/get_pinned_room_ids')
    expect([...pinnedRoomIDs].sort()).toEqual([groupID, personalID].sort())
    expect(await stateInList(ann, personalID)).toMatchObject({ pinned: true, pinnedAt: expect.any(Number) })
    const [pinned] = await statesBeforeMarker(phone).then((states) => states.slice(-1))
    expect(pinned).toMatchObject({ roomID: groupID, pinned: true })
    const more: string[] = []
    for (let i = 0; i < 9; i++)
      more.push(
        (await data(ann, '/v1/client/room/create', { name: `R${i}`, type: 2, userIDs: [] })).room.roomID,
      )
    const tooMany = await ann.call('/v1/client/room/pin', { roomIDs: more })
    expect([tooMany.status, tooMany.json.error.code]).toEqual([409, '40902'])
    expect((await data(ann, '/v1/client/room/get_pinned_room_ids')).pinnedRoomIDs).toHaveLength(2)
    await data(ann, '/v1/client/room/unpin', { roomIDs: [personalID] })
    expect(await data(ann, '/v1/client/room/get_pinned_room_ids')).toEqual({ pinnedRoomIDs: [groupID] })
  })

  test('mark as unread: until a read receipt of the room, which every device hears of', async () => {
    await data(ann, '/v1/client/room/mark_as_unread', { roomIDs: [personalID] })
    expect(await data(ann, '/v1/client/room/get_unread_room_ids')).toEqual({ unreadRoomIDs: [personalID] })
    expect((await stateInList(ann, personalID)).markedUnread).toBe(true)
    const last = (
      await data(ann, '/v1/chat/message/list_by_room/before', { roomID: personalID })
    ).messages.at(-1)
    await statesBeforeMarker(laptop)
    await data(ann, '/v1/chat/message/feedback/read', { messageIDs: [last.messageID] })
    expect(await statesBeforeMarker(laptop)).toEqual([
      expect.objectContaining({ roomID: personalID, markedUnread: false }),
    ])
    expect(await data(ann, '/v1/client/room/get_unread_room_ids')).toEqual({ unreadRoomIDs: [] })
  })

  test('rooms one is not in: 40301 or 40401; bad input 40002', async () => {
    const other = await org.signIn('other')
    const notIn = await other.call('/v1/client/room/mute', { roomIDs: [groupID] })
    expect([notIn.status, notIn.json.error.code]).toEqual([403, '40301'])
    expect((await ann.call('/v1/client/room/pin', { roomIDs: ['404'] })).json.error.code).toBe('40401')
    for (const [path, body, field] of [
      ['/v1/client/room/mute', {}, 'roomIDs'],
      ['/v1/client/room/mute', { roomIDs: [groupID], expiredAt: 1 }, 'expiredAt'],
      ['/v1/client/room/mute', { roomIDs: [groupID], expiredAt: 'soon' }, 'expiredAt'],
      ['/v1/client/room/pin', { roomIDs: Array(101).fill(groupID) }, 'roomIDs'],
      ['/v1/client/room/mark_as_unread', { roomIDs: 'x' }, 'roomIDs'],
    ] as const) {
      const reply = await ann.call(path, body)
      expect([reply.status, reply.json.error.code, reply.json.error.field], path).toEqual([
        400,
        '40002',
        field,
      ])
    }
  })
})
