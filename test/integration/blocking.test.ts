import { beforeAll, expect, test } from 'vitest'
import { useServer } from '../support/app.js'
import { dataOf, sendText } from '../support/client-calls.js'
import { createOrganization, roomHistory, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { connect } from '../support/sockets.js'

// Blocking (docs/reference/client-api.md, "Blocking"): private to the blocker; the blocked user
// cannot write to the blocker in their personal room nor open it (40303), does not see the
// blocker's presence or typing, and their group messages reach the blocker marked `senderBlocked`.
/** A message of the TapTalk.io SDK's room list, as far as this test reads it. */
interface SDKListed {
  room: { roomID: string }
  user: { userID: string }
  senderBlocked?: boolean
}

describeEachDatabase('blocking', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let ann: TestClient
  let ben: TestClient
  let cat: TestClient
  let groupID: string
  let personalID: string

  beforeAll(async () => {
    org = await createOrganization(server(), 'Blocks')
    ann = await org.signIn('ann')
    ben = await org.signIn('ben')
    cat = await org.signIn('cat')
    const group = await data(ann, '/v1/client/room/create', {
      name: 'Three',
      type: 2,
      userIDs: [ben.userID, cat.userID],
    })
    groupID = group.room.roomID
    personalID = (await send(ben, { recipientUserID: ann.userID }, 'before the block')).json.data.message
      .roomID
  })

  const data = dataOf
  const send = sendText

  test('the blocker lists whom they blocked; the blocked user is not told; the backend reads both ways', async () => {
    const benSocket = await connect(server().url, ben.accessToken)
    await data(ann, '/v1/client/contact/add', { userID: ben.userID })
    await data(ann, '/v1/client/contact/block', { userID: ben.userID })
    await data(ann, '/v1/client/contact/block', { userID: ben.userID })
    const { blockedContacts } = await data(ann, '/v1/client/contact/get_blocked_list')
    expect(blockedContacts).toEqual([
      { user: expect.objectContaining({ userID: ben.userID }), created: expect.any(Number) },
    ])
    expect(await data(ann, '/v1/client/contact/get_blocked_user_ids')).toEqual({
      blockedUserIDs: [ben.userID],
    })
    // A blocked user leaves the blocker's contacts.
    expect((await data(ann, '/v1/client/contact/list')).contacts).toEqual([])
    expect(await data(ben, '/v1/client/contact/get_blocked_user_ids')).toEqual({ blockedUserIDs: [] })
    // Nothing reached ben's socket before a marker message of cat's.
    await send(cat, { roomID: groupID }, 'marker 1')
    const frames = await benSocket.framesThrough((f) => f.data?.body === 'marker 1')
    const own = (f: { eventName: string; data: { user?: { userID: string } } }) =>
      f.eventName === 'user/status' && f.data.user?.userID === ben.userID
    expect(frames.filter((f) => !own(f)).map((f) => f.eventName)).toEqual(['chat/sendMessage'])
    await benSocket.close()
    const server_ = (body: unknown) =>
      server().post('/v1/server/user/blocks', body, { 'server-key': org.serverKey })
    expect((await server_({ xcUserID: 'ann' })).json.data).toEqual({
      blocked: [{ userID: ben.userID, created: expect.any(Number) }],
      blockedBy: [],
    })
    expect((await server_({ userID: ben.userID })).json.data).toEqual({
      blocked: [],
      blockedBy: [{ userID: ann.userID, created: expect.any(Number) }],
    })
    expect((await server_({ xcUserID: 'nobody' })).json.error.code).toBe('40401')
  })

  test('the blocked user cannot write in the personal room (40303), nor open one', async () => {
    const targets: Record<string, string>[] = [{ roomID: personalID }, { recipientUserID: ann.userID }]
    for (const to of targets) {
      const refused = await send(ben, to, 'let me in')
      expect([refused.status, refused.json.error.code]).toEqual([403, '40303'])
    }
    expect((await roomHistory(ann, personalID)).map((m) => m.body)).toEqual(['before the block'])
    // The blocker still may write (they chose the block).
    expect((await send(ann, { roomID: personalID }, 'from ann')).status).toBe(200)
    // cat blocks ben before they ever talked: no room opens.
    await data(cat, '/v1/client/contact/block', { userID: ben.userID })
    const opening = await send(ben, { recipientUserID: cat.userID }, 'hello cat')
    expect(opening.json.error.code).toBe('40303')
    const ids = [ben.userID, cat.userID].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))
    expect((await cat.call('/v1/client/room/get', { roomID: ids.join('-') })).json.error.code).toBe('40401')
    await data(cat, '/v1/client/contact/unblock', { userID: ben.userID })
  })

  test("the blocked user sees neither the blocker's presence nor their typing", async () => {
    const benSocket = await connect(server().url, ben.accessToken)
    const catSocket = await connect(server().url, cat.accessToken)
    const annSocket = await connect(server().url, ann.accessToken)
    await catSocket.waitUntil((f) => f.eventName === 'user/status' && f.data.user.userID === ann.userID)
    annSocket.send({ eventName: 'chat/startTyping', data: { roomID: groupID } })
    await catSocket.waitUntil((f) => f.eventName === 'chat/startTyping' && f.data.user.userID === ann.userID)
    await send(cat, { roomID: groupID }, 'marker 2')
    const frames = await benSocket.framesThrough((f) => f.data?.body === 'marker 2')
    expect(frames.filter((f) => f.data?.user?.userID === ann.userID)).toEqual([])
    // ben's own presence and typing still reach ann.
    benSocket.send({ eventName: 'chat/startTyping', data: { roomID: groupID } })
    await annSocket.waitUntil((f) => f.eventName === 'chat/startTyping' && f.data.user.userID === ben.userID)
    for (const socket of [annSocket, benSocket, catSocket]) await socket.close()
  })

  test('in a group room the blocked user’s messages still arrive, marked for the blocker alone', async () => {
    const annSocket = await connect(server().url, ann.accessToken)
    const catSocket = await connect(server().url, cat.accessToken)
    const reply = await send(ben, { roomID: groupID }, 'to the group')
    expect(reply.json.data.message.senderBlocked).toBeUndefined()
    const toAnn = await annSocket.waitUntil((f) => f.data?.body === 'to the group')
    const toCat = await catSocket.waitUntil((f) => f.data?.body === 'to the group')
    expect(toAnn.data.senderBlocked).toBe(true)
    expect(toCat.data.senderBlocked).toBeUndefined()
    const annSees = (await roomHistory(ann, groupID)).filter((m) => m.user.userID === ben.userID)
    expect(annSees.map((m) => m.senderBlocked)).toEqual([true])
    const catSees = (await roomHistory(cat, groupID)).filter((m) => m.user.userID === ben.userID)
    expect(catSees.map((m) => m.senderBlocked)).toEqual([undefined])
    // Its later changes (cat reads it), the room list and what changed since: marked for ann alone.
    await data(cat, '/v1/chat/message/feedback/read', { messageIDs: [reply.json.data.message.messageID] })
    const updated = (f: { eventName: string; data: { body?: string } }) =>
      f.eventName === 'chat/updateMessage' && f.data.body === 'to the group'
    expect((await annSocket.waitUntil(updated)).data.senderBlocked).toBe(true)
    expect((await catSocket.waitUntil(updated)).data.senderBlocked).toBeUndefined()
    const lastIn = async (client: TestClient) =>
      (await data(client, '/v1/chat/message/room_list_and_unread')).rooms.find(
        (r: { room: { roomID: string } }) => r.room.roomID === groupID,
      ).lastMessage
    expect((await lastIn(ann)).senderBlocked).toBe(true)
    expect((await lastIn(cat)).senderBlocked).toBeUndefined()
    await send(ben, { roomID: groupID }, 'once more')
    const changed = (await data(ann, '/v1/chat/message/new_and_updated')).messages
    expect(changed.find((m: { body: string }) => m.body === 'once more').senderBlocked).toBe(true)
    // The TapTalk.io SDK's room list carries the unread messages themselves: marked for ann alone.
    const { appKey } = await server().app.services.appKeys.create(operator, org.organizationID)
    const sdkRoomList = async (client: TestClient) => {
      const reply = await fetch(`${server().url}/v1/chat/message/room_list_and_unread`, {
        method: 'POST',
        headers: { 'App-Key': appKey, authorization: `Bearer ${client.accessToken}` },
        body: '""',
      })
      const { messages } = ((await reply.json()) as { data: { messages: SDKListed[] } }).data
      return messages.filter((m) => m.room.roomID === groupID && m.user.userID === ben.userID)
    }
    const annListed = await sdkRoomList(ann)
    expect(annListed.map((m) => m.senderBlocked)).toEqual([true, true])
    expect((await sdkRoomList(cat)).every((m) => m.senderBlocked === undefined)).toBe(true)
    await annSocket.close()
    await catSocket.close()
  })

  test('after unblocking, the personal room takes messages again', async () => {
    await data(ann, '/v1/client/contact/unblock', { userID: ben.userID })
    expect((await send(ben, { roomID: personalID }, 'friends again')).status).toBe(200)
    expect(await data(ann, '/v1/client/contact/get_blocked_list')).toEqual({ blockedContacts: [] })
  })

  test('bad input is 40002; an unknown user is 40401', async () => {
    for (const path of ['/v1/client/contact/block', '/v1/client/contact/unblock']) {
      const reply = await ann.call(path, {})
      expect([reply.status, reply.json.error.code, reply.json.error.field]).toEqual([400, '40002', 'userID'])
    }
    expect((await ann.call('/v1/client/contact/block', { userID: ann.userID })).json.error.code).toBe('40002')
    expect((await ann.call('/v1/client/contact/block', { userID: '999999' })).json.error.code).toBe('40401')
  })

  test('the blocker’s other devices hear of a block and an unblock; the blocked user hears nothing', async () => {
    const gus = await org.signIn('gus')
    const gusTablet = await org.signIn('gus')
    const hal = await org.signIn('hal')
    const tablet = await connect(server().url, gusTablet.accessToken)
    const phone = await connect(server().url, gus.accessToken)
    const halSocket = await connect(server().url, hal.accessToken)
    await data(gus, '/v1/client/contact/block', { userID: hal.userID })
    await data(gus, '/v1/client/contact/unblock', { userID: hal.userID })
    const told = await tablet.framesThrough((f) => f.eventName === 'user/unblock')
    const blocks = told.filter((f) => f.eventName.startsWith('user/') && f.eventName !== 'user/status')
    expect(blocks.map((f) => [f.eventName, f.data.user.userID])).toEqual([
      ['user/block', hal.userID],
      ['user/unblock', hal.userID],
    ])
    // The device that did it has its answers; hal, nothing but presence, up to a marker.
    const room = await data(gus, '/v1/client/room/create', { name: 'marker', type: 2, userIDs: [hal.userID] })
    await send(gus, { roomID: room.room.roomID }, 'marker 3')
    const halFrames = await halSocket.framesThrough((f) => f.data?.body === 'marker 3')
    expect(halFrames.filter((f) => f.eventName !== 'user/status').map((f) => f.eventName)).toEqual([
      'chat/sendMessage',
    ])
    expect(phone.frames.filter((f) => /^user\/(un)?block$/.test(f.eventName))).toEqual([])
    for (const socket of [tablet, phone, halSocket]) await socket.close()
  })

  test("erasure removes the user's blocks both ways", async () => {
    const eve = await org.signIn('eve')
    const fay = await org.signIn('fay')
    await data(eve, '/v1/client/contact/block', { userID: fay.userID })
    await data(fay, '/v1/client/contact/block', { userID: eve.userID })
    await data(fay, '/v1/client/contact/add', { userID: eve.userID })
    const serverCall = (path: string, body: unknown) =>
      server().post(`/v1/server/user/${path}`, body, { 'server-key': org.serverKey })
    expect((await serverCall('delete', { userID: eve.userID })).status).toBe(200)
    expect((await serverCall('blocks', { userID: fay.userID })).json.data).toEqual({
      blocked: [],
      blockedBy: [],
    })
    expect(await data(fay, '/v1/client/contact/list')).toEqual({ contacts: [] })
  })

  // The rule: a send checked before the block commits is stored and delivered; one checked after is
  // refused (40303) and stored nowhere. Sends in flight while the block commits are one or the
  // other, never half. On PostgreSQL the requests run at once on their own connections.
  test.runIf(dialect === 'postgres')('a block arriving while messages are in flight', async () => {
    const dan = await org.signIn('dan')
    const room = (await send(dan, { recipientUserID: ann.userID }, 'first')).json.data.message.roomID
    // The block goes out amid the sends: some are checked before it commits, some after.
    const sends = Array.from({ length: 15 }, (_, i) => send(dan, { roomID: room }, `race ${i}`))
    const block = data(ann, '/v1/client/contact/block', { userID: dan.userID })
    sends.push(...Array.from({ length: 15 }, (_, i) => send(dan, { roomID: room }, `race ${15 + i}`)))
    const replies = await Promise.all(sends)
    await block
    const after = await Promise.all(
      Array.from({ length: 5 }, (_, i) => send(dan, { roomID: room }, `after ${i}`)),
    )
    for (const reply of after) expect(reply.json.error.code).toBe('40303')
    const accepted = replies.filter((r) => r.status === 200).map((r) => r.json.data.message.body)
    const refused = replies.filter((r) => r.status !== 200)
    for (const reply of refused) expect([reply.status, reply.json.error.code]).toEqual([403, '40303'])
    expect(accepted.length + refused.length).toBe(30)
    // Exactly the accepted ones are stored, each once: what ann reads is what dan was told.
    const stored = (await roomHistory(ann, room)).map((m) => m.body).filter((b) => b.startsWith('race'))
    expect(stored.sort()).toEqual(accepted.sort())
  })
})
