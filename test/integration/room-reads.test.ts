import { beforeAll, describe, expect, test } from 'vitest'
import { readRoom, readRooms } from '../../src/domain/rooms/room-read.repository.js'
import { type TestServer, useServer } from '../support/app.js'
import { createOrganization, type TestClient } from '../support/clients.js'
import { describeEachDatabase, postgresURL } from '../support/databases.js'

// Every access check reads its room (rooms.service). On PostgreSQL a busy server's reads share
// round trips (storage/batcher.ts): many users' reads of many rooms, some they may not see,
// go out in one query. Each must still get exactly its own answer.

/** Eight users in four personal rooms (0-1, 2-3, ...) and two groups that overlap them. */
async function someRooms(server: TestServer) {
  const org = await createOrganization(server)
  const users = await Promise.all(Array.from({ length: 8 }, (_, i) => org.signIn(`reader-${i}`)))
  const rooms: { roomID: string; members: TestClient[] }[] = []
  for (let i = 0; i < 8; i += 2) {
    const [from, to] = [users[i] as TestClient, users[i + 1] as TestClient]
    const sent = await from.call('/v1/chat/message/send', {
      recipientUserID: to.userID,
      localID: `hello-${i}`,
      type: 1001,
      body: `hello from ${i}`,
    })
    rooms.push({ roomID: sent.json.data.message.roomID, members: [from, to] })
  }
  for (const members of [users.slice(0, 5), users.slice(3)]) {
    const [creator, ...others] = members as [TestClient, ...TestClient[]]
    const created = await creator.call('/v1/client/room/create', {
      name: `group of ${members.length}`,
      type: 2,
      userIDs: others.map((user) => user.userID),
    })
    rooms.push({ roomID: created.json.data.room.roomID, members })
  }
  return { users, rooms }
}

describeEachDatabase('room reads', (dialect) => {
  const server = useServer(dialect)
  let users: TestClient[]
  let rooms: { roomID: string; members: TestClient[] }[]

  beforeAll(async () => {
    ;({ users, rooms } = await someRooms(server()))
  })

  /** Every user asks for every room, and for one that does not exist: the room or its error. */
  const everyAsk = () =>
    users.flatMap((user) =>
      [...rooms.map((room) => room.roomID), 'no-such-room'].flatMap((roomID) => [
        () => user.call('/v1/client/room/get', { roomID }),
        () => user.call('/v1/chat/message/list_by_room/before', { roomID, maxCreated: 0, limit: 10 }),
      ]),
    )

  test('many users reading many rooms at once get the answers each gets alone', async () => {
    const asks = everyAsk()
    const together = await Promise.all(asks.map((ask) => ask()))
    const alone = []
    for (const ask of asks) alone.push(await ask())
    expect(together.map((reply) => [reply.status, reply.json])).toEqual(
      alone.map((reply) => [reply.status, reply.json]),
    )
    // Members see their rooms; others are refused, and a room that does not exist is not found.
    const statuses = together.map((reply) => reply.status)
    expect(statuses.filter((status) => status === 200).length).toBe(
      2 * rooms.reduce((sum, room) => sum + room.members.length, 0),
    )
    expect(new Set(statuses)).toEqual(new Set([200, 403, 404]))
  })
})

describe.skipIf(!postgresURL)('room reads in one query [postgres]', () => {
  const server = useServer('postgres')

  test('several reads in one query are each what a read alone reads, with only its own users', async () => {
    const { users, rooms } = await someRooms(server())
    const { db } = server().testDatabase.database
    const [a, b, c] = users as [TestClient, TestClient, TestClient]
    const [personal, otherPersonal, , , group] = rooms.map((room) => room.roomID) as string[]
    const keys = [
      { roomID: personal as string, userIDs: [a.userID, b.userID] as const },
      { roomID: personal as string, userIDs: [a.userID] as const },
      { roomID: group as string, userIDs: [c.userID] as const },
      { roomID: group as string, userIDs: [] as const },
      { roomID: 'no-such-room', userIDs: [a.userID] as const },
      { roomID: otherPersonal as string, userIDs: [a.userID] as const },
    ]
    const alone = await Promise.all(keys.map((key) => readRoom(db, key.roomID, key.userIDs)))
    expect(await readRooms(db, keys)).toEqual(alone)
    expect(alone.map((read) => read?.users.length)).toEqual([2, 1, 1, 0, undefined, 0])
  })
})
