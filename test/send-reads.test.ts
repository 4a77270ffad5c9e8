import { join } from 'node:path'
import pg from 'pg'
import { beforeAll, expect, test } from 'vitest'
import { DATABASE_FILE } from '../src/storage/data-dir.js'
import { loadSqlite } from '../src/storage/sqlite-driver.js'
import { useServer } from './support/app.js'
import { createOrganization, type TestClient } from './support/clients.js'
import { describeEachDatabase } from './support/databases.js'

const SQLite = loadSqlite()

// On SQLite a send's room read is kept while nothing it read changes (domain/rooms/send-reads.ts,
// storage/write-marks.ts). Whatever changes the room, its participants or its users, through
// Parley or behind its back (another process), the next send sees it, as on PostgreSQL.

const SEND = '/v1/chat/message/send'

describeEachDatabase("a send's room read", (dialect) => {
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

  /** Takes the user out of the room with a connection of its own, as another process would. */
  async function removeBehindTheBack(roomID: string, userID: string) {
    const { dataDir, databaseURL } = server().testDatabase
    const remove = 'delete from room_participants where room_id = $1 and user_id = $2'
    if (!databaseURL) {
      const other = new SQLite(join(dataDir, DATABASE_FILE))
      other.prepare(remove.replace(/\$\d/g, '?')).run(roomID, userID)
      other.close()
      return
    }
    const other = new pg.Client({ connectionString: databaseURL })
    await other.connect()
    await other.query(remove, [roomID, userID])
    await other.end()
  }
})
