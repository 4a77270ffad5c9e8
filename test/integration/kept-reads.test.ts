import { join } from 'node:path'
import pg from 'pg'
import { beforeAll, expect, test } from 'vitest'
import { DATABASE_FILE } from '../../src/storage/data-dir.js'
import { loadSqlite } from '../../src/storage/sqlite-driver.js'
import { useServer } from '../support/app.js'
import { createOrganization, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'

const SQLite = loadSqlite()

// On SQLite room reads are kept while nothing they read changes (domain/rooms/kept-reads.ts,
// storage/write-marks.ts). Whatever changes the room, its participants or its users, through
// Parley or behind its back (another process), the next send and the next read see it, as on
// PostgreSQL; a read sees what sends spare too (the room's last message, read marks).

const SEND = '/v1/chat/message/send'

describeEachDatabase('kept room reads', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let ann: TestClient
  let ben: TestClient
  let cal: TestClient

  beforeAll(async () => {
    org = await createOrganization(server())
    ;[ann, ben, cal] = await Promise.all([org.signIn('ann'), org.signIn('ben'), org.signIn('cal')])
  })

  let sent = 0
  const send = (from: TestClient, to: { roomID: string } | { recipientUserID: string }) =>
    from.call(SEND, { ...to, localID: `m-${sent++}`, type: 1001, body: 'hello' })
  const serverAPI = (path: string, body: unknown) =>
    server().post(`/v1/server${path}`, body, { 'server-key': org.serverKey })
  const group = async () =>
    (await ann.call('/v1/client/room/create', { name: 'g', type: 2, userIDs: [ben.userID, cal.userID] })).json
      .data.room.roomID as string

  test('a participant removed from a group sends there no more', async () => {
    const roomID = await group()
    expect((await send(ben, { roomID })).status).toBe(200)
    await ann.call('/v1/client/room/participants/remove', { roomID, userIDs: [ben.userID] })
    expect((await send(ben, { roomID })).json.error.code).toBe('40301')
    expect((await send(cal, { roomID })).status).toBe(200)
  })

  test("a sender's new name is on their next message", async () => {
    const dee = await org.signIn('dee')
    await send(dee, { recipientUserID: ann.userID }) // opens the room
    const before = await send(dee, { recipientUserID: ann.userID })
    expect(before.json.data.message.user.fullname).toBe('User dee')
    await serverAPI('/user/update', { userID: dee.userID, fullName: 'Dee Renamed' })
    const next = await send(dee, { recipientUserID: ann.userID })
    expect(next.json.data.message.user.fullname).toBe('Dee Renamed')
  })

  test('a recipient deleted gets no more messages', async () => {
    const eve = await org.signIn('eve')
    await send(ann, { recipientUserID: eve.userID }) // opens the room
    expect((await send(ann, { recipientUserID: eve.userID })).status).toBe(200)
    expect((await serverAPI('/user/delete', { userID: eve.userID })).status).toBe(200)
    const refused = await send(ann, { recipientUserID: eve.userID })
    expect(refused.json.error).toMatchObject({ code: '40401', message: `User ${eve.userID} not found` })
  })

  test('read receipts and sends leave what a send tells right', async () => {
    const roomID = await group()
    const first = (await send(ann, { roomID })).json.data.message
    await ben.call('/v1/chat/message/feedback/read', { messageIDs: [first.messageID] })
    await cal.call('/v1/chat/message/feedback/read', { messageIDs: [first.messageID] })
    const next = (await send(ann, { roomID })).json.data.message
    expect(next).toMatchObject({ isRead: false, isDelivered: false, user: { fullname: 'User ann' } })
    const history = await ann.call('/v1/chat/message/list_by_room/before', {
      roomID,
      maxCreated: 0,
      limit: 10,
    })
    const byID = new Map(history.json.data.messages.map((m: { messageID: string }) => [m.messageID, m]))
    expect(byID.get(first.messageID)).toMatchObject({ isRead: true })
  })

  test('a change another process commits is seen by the next send', async () => {
    const roomID = await group()
    expect((await send(cal, { roomID })).status).toBe(200)
    await removeBehindTheBack(roomID, cal.userID)
    expect((await send(cal, { roomID })).json.error.code).toBe('40301')
  })

  const history = async (reader: TestClient, roomID: string) =>
    (await reader.call('/v1/chat/message/list_by_room/before', { roomID, limit: 10 })).json.data.messages as {
      messageID: string
      isRead: boolean
    }[]

  test("a page read again shows the other's new message, then that it was read", async () => {
    const roomID = await group()
    await send(ann, { roomID })
    expect(await history(ann, roomID)).toHaveLength(1)
    const next = (await send(ben, { roomID })).json.data.message
    // Ben's send spared Ann's kept read of the room: her page must not.
    const page = await history(ann, roomID)
    expect(page.map((m) => m.messageID)).toEqual([expect.any(String), next.messageID])
    expect(page[1]?.isRead).toBe(false)
    await ann.call('/v1/chat/message/feedback/read', { messageIDs: [next.messageID] })
    await cal.call('/v1/chat/message/feedback/read', { messageIDs: [next.messageID] })
    expect((await history(ben, roomID))[1]).toMatchObject({ messageID: next.messageID, isRead: true })
  })

  test('a room renamed by another process is read anew', async () => {
    const roomID = await group()
    const get = async () => (await ann.call('/v1/client/room/get', { roomID })).json.data.room.name
    expect(await get()).toBe('g')
    await behindTheBack('update rooms set name = $1 where id = $2', ['renamed', roomID])
    expect(await get()).toBe('renamed')
  })

  /** Takes the user out of the room with a connection of its own, as another process would. */
  const removeBehindTheBack = (roomID: string, userID: string) =>
    behindTheBack('delete from room_participants where room_id = $1 and user_id = $2', [roomID, userID])

  /** Runs the statement with a connection of its own, as another process would. */
  async function behindTheBack(statement: string, values: string[]) {
    const { dataDir, databaseURL } = server().testDatabase
    if (!databaseURL) {
      const other = new SQLite(join(dataDir, DATABASE_FILE))
      other.prepare(statement.replace(/\$\d/g, '?')).run(...values)
      other.close()
      return
    }
    const other = new pg.Client({ connectionString: databaseURL })
    await other.connect()
    await other.query(statement, values)
    await other.end()
  }
})
