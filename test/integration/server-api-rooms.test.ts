import { beforeAll, expect, test } from 'vitest'
import { useServer } from '../support/app.js'
import { createOrganization, roomHistory, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect } from '../support/sockets.js'

const S = '/v1/server'

// The server API's rooms and messages: group rooms with participants, messages as a user or as the
// organization's system sender, a room's history.
describeEachDatabase('server API: rooms and messages', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let other: Awaited<ReturnType<typeof createOrganization>>
  let ann: TestClient
  let ben: TestClient
  let cat: TestClient
  let stranger: TestClient
  let roomID: string

  beforeAll(async () => {
    org = await createOrganization(server(), 'Shop')
    other = await createOrganization(server(), 'Elsewhere')
    ann = await org.signIn('ann')
    ben = await org.signIn('ben')
    cat = await org.signIn('cat')
    stranger = await other.signIn('stranger')
  })

  const call = (path: string, body: unknown, key = org.serverKey) =>
    server().post(`${S}${path}`, body, { 'server-key': key })
  const data = async (path: string, body: unknown) => {
    const reply = await call(path, body)
    expect(reply.json.error, `${path}: ${reply.text}`).toEqual({ code: '', message: '', field: '' })
    return reply.json.data
  }

  test('create a group room with participants; add and remove them', async () => {
    const { room } = await data('/room/create', { name: 'Order 1001', userIDs: [ann.userID, ben.userID] })
    roomID = room.roomID
    expect(room).toMatchObject({ name: 'Order 1001', type: 2, userIDs: [ann.userID, ben.userID] })
    const added = await data('/room/participants/add', { roomID, userIDs: [cat.userID] })
    expect(added.room.userIDs).toEqual([ann.userID, ben.userID, cat.userID])
    const removed = await data('/room/participants/remove', { roomID, userIDs: [ben.userID] })
    expect(removed.room.userIDs).toEqual([ann.userID, cat.userID])
    expect((await data('/room/get', { roomID })).room.userIDs).toEqual([ann.userID, cat.userID])
    // The participants see it as theirs.
    expect((await ann.call('/v1/client/room/get', { roomID })).json.data.room.name).toBe('Order 1001')
  })

  test("another organization's users and rooms do not exist (40401)", async () => {
    const foreignUser = await call('/room/create', { name: 'x', userIDs: [stranger.userID] })
    expect(foreignUser.status).toBe(404)
    expect(foreignUser.json.error.code).toBe('40401')
    for (const [path, body] of [
      ['/room/get', { roomID }],
      ['/room/participants/add', { roomID, userIDs: [stranger.userID] }],
      ['/message/list', { roomID }],
      ['/message/send', { roomID, localID: 'x', type: 1001, body: 'x' }],
    ] as const) {
      expect((await call(path, body, other.serverKey)).json.error.code, path).toBe('40401')
    }
    expect(
      (await call('/room/participants/add', { roomID, userIDs: [stranger.userID] })).json.error.code,
    ).toBe('40401')
  })

  test('bad input is a 40002, never a 500', async () => {
    const cases: [string, unknown, string][] = [
      ['/room/create', { userIDs: [ann.userID] }, 'name'],
      ['/room/create', { name: 'x', userIDs: [] }, 'userIDs'],
      ['/room/create', { name: 'x'.repeat(300), userIDs: [ann.userID] }, 'name'],
      ['/room/participants/add', { roomID, userIDs: 'ann' }, 'userIDs'],
      ['/message/send', { roomID, type: 1001, body: 'x' }, 'localID'],
      ['/message/send', { roomID, localID: 'x', type: 7, body: 'x' }, 'type'],
      ['/message/send', { roomID, localID: 'x', type: 1001, body: 'x'.repeat(20_001) }, 'body'],
      ['/message/send', { localID: 'x', type: 1001, body: 'x' }, 'roomID'],
      ['/message/list', { roomID, limit: 1000 }, 'limit'],
    ]
    for (const [path, body, field] of cases) {
      const reply = await call(path, body)
      expect(reply.status, `${path} ${JSON.stringify(body).slice(0, 60)}`).toBe(400)
      expect(reply.json.error).toMatchObject({ code: '40002', field })
    }
    for (const text of ['nul\u0000here', 'lone \ud800 surrogate']) {
      const reply = await call('/room/create', { name: text, userIDs: [ann.userID] })
      expect(reply.status).not.toBe(500)
      const sent = await call('/message/send', { roomID, localID: text, type: 1001, body: text })
      expect(sent.status).not.toBe(500)
    }
  })

  test('send as a user: every socket of theirs and of the room hears it; a retry stores nothing new', async () => {
    const annSocket = await connect(server().url, ann.accessToken)
    const catSocket = await connect(server().url, cat.accessToken)
    const body = { userID: ann.userID, roomID, localID: 'ann-1', type: 1001, body: 'Hello from Ann' }
    const { message } = await data('/message/send', body)
    expect(message).toMatchObject({ roomID, body: 'Hello from Ann', user: { userID: ann.userID } })
    expect((await data('/message/send', body)).message.messageID).toBe(message.messageID)
    for (const socket of [annSocket, catSocket]) {
      const [frame] = await socket.waitFor('chat/sendMessage')
      expect(frame.data.messageID).toBe(message.messageID)
      await socket.close()
    }
    // Not a participant: 40301; to a personal room by recipientUserID: opened.
    const outside = await call('/message/send', { ...body, userID: ben.userID, localID: 'ben-1' })
    expect(outside.json.error.code).toBe('40301')
    const personal = await data('/message/send', {
      userID: ben.userID,
      recipientUserID: cat.userID,
      localID: 'ben-2',
      type: 1001,
      body: 'Hi Cat',
    })
    expect(personal.message.room.type).toBe(1)
  })

  test('send as the system sender: an order-status notice from "Parley"', async () => {
    const { message } = await data('/message/send', {
      roomID,
      localID: 'order-1001-shipped',
      type: 1001,
      body: 'Your order has shipped',
    })
    expect(message.user).toMatchObject({ userID: 'system', fullname: 'Parley' })
    const history = await roomHistory(cat, roomID)
    expect(history.at(-1)).toMatchObject({ body: 'Your order has shipped', user: { userID: 'system' } })
    // A file the system never uploaded does not exist.
    const file = await call('/message/send', { roomID, localID: 'f', type: 1004, data: { fileID: '123' } })
    expect(file.json.error.code).toBe('40401')
  })

  test("list a room's messages, a page at a time, oldest first", async () => {
    for (let i = 0; i < 3; i++)
      await data('/message/send', { roomID, localID: `page-${i}`, type: 1001, body: `page ${i}` })
    const latest = await data('/message/list', { roomID, limit: 2 })
    expect(latest.messages.map((m: { body: string }) => m.body)).toEqual(['page 1', 'page 2'])
    expect(latest.hasMore).toBe(true)
    const before = await data('/message/list', { roomID, limit: 1, maxCreated: latest.messages[0].created })
    expect(before.messages.map((m: { body: string }) => m.body)).toEqual(['page 0'])
  })

  test('a deactivated user cannot be sent as (40301)', async () => {
    await data('/user/deactivate', { userID: cat.userID })
    const reply = await call('/message/send', {
      userID: cat.userID,
      roomID,
      localID: 'c',
      type: 1001,
      body: 'x',
    })
    expect(reply.status).toBe(403)
    expect(reply.json.error.code).toBe('40301')
  })
})
