import { expect, test } from 'vitest'
import { type TestServer, useServer } from '../support/app.js'
import { bearer, createOrganization, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { seedRooms } from '../support/rooms.js'
import { recordStatements } from '../support/statements.js'

// Issue 40, item 4: lists that grew without bound. The room list answered every room of the user
// (6,000 rooms: 0.8 s), the TapTalk.io room list ran one query per room with unread messages, and
// a user could be in any number of group rooms. Now the room list answers a page of at most 500
// rooms (also to a client that asks for no page), both lists cost the same few statements however
// many rooms there are, and a user is in at most GROUP_ROOMS_PER_USER group rooms
// (docs/reference/quotas.md).

const ROOM_LIST = '/v1/chat/message/room_list_and_unread'

/** `rooms` group rooms of `user` and `other`, each with `messages` messages of `other`'s (unread). */
const seed = (
  server: TestServer,
  organizationID: string,
  [user, other]: [TestClient, TestClient],
  { rooms, messages }: { rooms: number; messages: number },
) =>
  seedRooms(server.testDatabase.database.db, {
    organizationID,
    userID: user.userID,
    peerID: other.userID,
    rooms,
    messagesOf: () => messages,
    start: server.clock.now() - 10_000_000,
    nextID: () => server.testDatabase.database.ids.next(),
  })

/** The statements `call` runs, and its answer. */
async function counted<T>(call: () => Promise<T>) {
  const recording = recordStatements()
  const answer = await call()
  return { answer, statements: recording.stop() }
}

describeEachDatabase('room lists', (dialect) => {
  const server = useServer(dialect)

  test('the room list answers at most 500 rooms, in pages that cover every room once, in the same statements for 3 rooms as for 620', async () => {
    const org = await createOrganization(server())
    const [ann, bob, cid] = await Promise.all(['ann', 'bob', 'cid'].map(org.signIn))
    const pair = [ann, bob] as [TestClient, TestClient]
    await seed(server(), org.organizationID, pair, { rooms: 600, messages: 1 })
    await seed(server(), org.organizationID, pair, { rooms: 20, messages: 0 })
    await seed(server(), org.organizationID, [cid as TestClient, bob as TestClient], {
      rooms: 3,
      messages: 1,
    })

    const few = await counted(() => (cid as TestClient).call(ROOM_LIST))
    expect(few.answer.json.data.rooms).toHaveLength(3)
    const first = await counted(() => (ann as TestClient).call(ROOM_LIST))
    const page = first.answer.json.data
    expect(page.rooms).toHaveLength(500)
    expect(page.hasMore).toBe(true)
    expect(first.statements).toHaveLength(few.statements.length)

    const seen = page.rooms.map((entry: { room: { roomID: string } }) => entry.room.roomID)
    const created = page.rooms.map(
      (entry: { lastMessage: { created: number } | null }) => entry.lastMessage?.created ?? 0,
    )
    expect(created).toEqual([...created].sort((a: number, b: number) => b - a))
    for (let last = page.rooms.at(-1), hasMore = page.hasMore; hasMore; ) {
      const next = (
        await (ann as TestClient).call(ROOM_LIST, {
          limit: 100,
          before: last.lastMessage?.created ?? 0,
          beforeRoomID: last.room.roomID,
        })
      ).json.data
      expect(next.rooms.length).toBeLessThanOrEqual(100)
      seen.push(...next.rooms.map((entry: { room: { roomID: string } }) => entry.room.roomID))
      last = next.rooms.at(-1)
      hasMore = next.hasMore
    }
    expect(seen).toHaveLength(620)
    expect(new Set(seen).size).toBe(620)

    for (const limit of [0, 501, 'ten']) {
      const refused = await (ann as TestClient).call(ROOM_LIST, { limit })
      expect(refused.json.error).toMatchObject({ code: '40002', field: 'limit' })
    }
  })

  test('the TapTalk.io room list reads unread messages of every room in the same statements, within its bounds', async () => {
    const org = await createOrganization(server(), 'Compat')
    const appKey = (await server().app.services.appKeys.create(operator, org.organizationID)).appKey
    const [dee, eli, fay] = await Promise.all(['dee', 'eli', 'fay'].map(org.signIn))
    await seed(server(), org.organizationID, [dee, eli] as [TestClient, TestClient], {
      rooms: 250,
      messages: 5,
    })
    await seed(server(), org.organizationID, [fay, eli] as [TestClient, TestClient], {
      rooms: 2,
      messages: 5,
    })
    const sdkRoomList = (client: TestClient) =>
      fetch(`${server().url}${ROOM_LIST}`, {
        method: 'POST',
        headers: { 'App-Key': appKey, ...bearer(client.accessToken) },
        body: '""',
      }).then(
        async (reply) => (await reply.json()) as { status: number; data: { messages: { roomID: string }[] } },
      )

    // Once before counting: the App-Key and the session are read once, then kept a while.
    await Promise.all([sdkRoomList(fay as TestClient), sdkRoomList(dee as TestClient)])
    const few = await counted(() => sdkRoomList(fay as TestClient))
    expect(few.answer.data.messages).toHaveLength(10)
    const many = await counted(() => sdkRoomList(dee as TestClient))
    expect(many.answer.status).toBe(200)
    expect(many.statements).toHaveLength(few.statements.length)
    // The 100 rooms with the newest messages bring their 5 unread messages (500 in all, the
    // bound); the other 150 their last message.
    const perRoom = new Map<string, number>()
    for (const { roomID } of many.answer.data.messages) perRoom.set(roomID, (perRoom.get(roomID) ?? 0) + 1)
    expect(perRoom.size).toBe(250)
    expect(many.answer.data.messages).toHaveLength(650)
    expect([...perRoom.values()].filter((count) => count === 5)).toHaveLength(100)
  })
})

describeEachDatabase('group rooms per user', (dialect) => {
  const server = useServer(dialect, { GROUP_ROOMS_PER_USER: '3' })
  const create = (client: TestClient, userIDs: string[] = [], name = 'room') =>
    client.call('/v1/client/room/create', { name, type: 2, userIDs })

  test('a user is in at most 3 group rooms: creating, being added and racing for the last one are refused with 409/40902', async () => {
    const org = await createOrganization(server())
    const [ann, bob, cid] = (await Promise.all(['ann', 'bob', 'cid'].map(org.signIn))) as [
      TestClient,
      TestClient,
      TestClient,
    ]
    const rooms = []
    for (let i = 0; i < 3; i++) rooms.push((await create(ann)).json.data.room.roomID)
    const refused = await create(ann)
    expect([refused.status, refused.json.error.code, refused.json.error.field]).toEqual([
      409,
      '40902',
      'userIDs',
    ])
    expect(refused.json.error.message).toBe(`User ${ann.userID} is in 3 group rooms, the most one may be in`)
    // Nor may others bring her into a fourth.
    const room = (await create(bob)).json.data.room.roomID
    const added = await bob.call('/v1/client/room/participants/add', { roomID: room, userIDs: [ann.userID] })
    expect(added.json.error.code).toBe('40902')
    const byServer = await server().post(
      '/v1/server/room/create',
      { name: 'ops', userIDs: [ann.userID, bob.userID] },
      { 'server-key': org.serverKey },
    )
    expect(byServer.json.error.code).toBe('40902')
    // Adding her where she is already changes nothing; leaving one makes room for another.
    expect(
      (await ann.call('/v1/client/room/participants/add', { roomID: rooms[0], userIDs: [ann.userID] }))
        .status,
    ).toBe(200)
    expect((await ann.call('/v1/client/room/leave', { roomID: rooms[0] })).status).toBe(200)
    expect(
      (await bob.call('/v1/client/room/participants/add', { roomID: room, userIDs: [ann.userID] })).status,
    ).toBe(200)

    // Cid is in 2 rooms and creates two more at once: one is made.
    for (let i = 0; i < 2; i++) await create(cid)
    const raced = await Promise.all([create(cid, [], 'a'), create(cid, [], 'b')])
    expect(raced.map((reply) => reply.status).sort()).toEqual([200, 409])
    const count = await server()
      .testDatabase.database.db.selectFrom('room_participants')
      .select((eb) => eb.fn.countAll<string>().as('rooms'))
      .where('user_id', '=', cid.userID)
      .executeTakeFirstOrThrow()
    expect(Number(count.rooms)).toBe(3)
  })
})
