import { beforeAll, describe, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { openCase } from '../support/cases.js'
import { bearer, createOrganization, requestTicket, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect } from '../support/sockets.js'
import { download, png, upload } from '../support/uploads.js'

const S = '/v1/server'

// The server API's users: read, list, update, deactivate and reactivate, revoke sessions, delete
// (erasure) and export, with the Server-Key of the ticket API.
describeEachDatabase('server API: users', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let other: Awaited<ReturnType<typeof createOrganization>>

  beforeAll(async () => {
    org = await createOrganization(server(), 'Shop')
    other = await createOrganization(server(), 'Elsewhere')
  })

  const call = (path: string, body: unknown, key = org.serverKey) =>
    server().post(`${S}${path}`, body, { 'server-key': key })
  const data = async (path: string, body: unknown) => {
    const reply = await call(path, body)
    expect(reply.json.error, `${path}: ${reply.text}`).toEqual({ code: '', message: '', field: '' })
    return reply.json.data
  }
  const exchange = (ticket: string) =>
    server().post('/v1/auth/access_token/request', undefined, bearer(ticket))
  const audit = async (action: string) =>
    (await server().app.services.audit.list({ kind: 'cli', user: 'test' }, org.organizationID, 100)).filter(
      (entry) => entry.action === action,
    )

  test('every call wants the Server-Key: 40001 without it, whatever the body', async () => {
    for (const path of ['/user/get', '/user/list', '/user/delete', '/user/export']) {
      const reply = await server().post(`${S}${path}`, { userID: 'x' })
      expect(reply.status).toBe(400)
      expect(reply.json.error).toEqual({
        code: '40001',
        message: 'Request headers are required (Server-Key)',
        field: '',
      })
    }
  })

  test("get by userID or xcUserID; another organization's user does not exist (40401)", async () => {
    const alice = await org.signIn('alice')
    const byID = await data('/user/get', { userID: alice.userID })
    expect(byID.user).toMatchObject({
      userID: alice.userID,
      xcUserID: 'alice',
      fullname: 'User alice',
      deactivated: false,
      deactivatedTime: null,
    })
    expect((await data('/user/get', { xcUserID: 'alice' })).user.userID).toBe(alice.userID)
    const foreign = await call('/user/get', { userID: alice.userID }, other.serverKey)
    expect(foreign.status).toBe(404)
    expect(foreign.json.error.code).toBe('40401')
    expect((await call('/user/get', { xcUserID: 'alice' }, other.serverKey)).json.error.code).toBe('40401')
  })

  test('bad input is a 40002 naming the field, never a 500', async () => {
    const cases: [unknown, string, string][] = [
      [{}, 'userID', "Param 'userID' is required"],
      [{ userID: 42 }, 'userID', "Param 'userID' must be a string"],
      [{ xcUserID: 'x'.repeat(51) }, '105', "Param 'xcUserID' must be at most 50 characters"],
      [{ userID: 'a'.repeat(100_000) }, 'userID', "Param 'userID' must be at most 64 characters"],
    ]
    for (const [body, field, message] of cases) {
      const reply = await call('/user/get', body)
      expect(reply.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(reply.json.error).toEqual({ code: '40002', message, field })
    }
    // NUL and lone surrogates: refused as parameters, or simply no such user; never a 500.
    for (const xcUserID of ['a\u0000b', '\ud800', 'x\udfff']) {
      const reply = await call('/user/get', { xcUserID })
      expect([400, 404]).toContain(reply.status)
    }
    const update = await call('/user/update', { xcUserID: 'alice', email: 'not an e-mail' })
    expect(update.json.error).toEqual({ code: '40002', message: "Param 'email' is invalid", field: '107' })
    const blank = await call('/user/update', { xcUserID: 'alice', fullName: '   ' })
    expect(blank.json.error).toEqual({ code: '40002', message: "Param 'fullName' is required", field: '106' })
    const mode = await call('/user/delete', { xcUserID: 'alice', messages: 'shred' })
    expect(mode.json.error).toMatchObject({ code: '40002', field: 'messages' })
  })

  test('list pages through users by userID; update changes only given fields', async () => {
    await org.signIn('list-1')
    await org.signIn('list-2')
    const seen: string[] = []
    let afterUserID = ''
    for (;;) {
      const page = await data('/user/list', { afterUserID, limit: 1 })
      seen.push(...page.users.map((u: { xcUserID: string }) => u.xcUserID))
      if (!page.hasMore) break
      afterUserID = page.users.at(-1).userID
    }
    expect(seen).toEqual(expect.arrayContaining(['alice', 'list-1', 'list-2']))
    expect(new Set(seen).size).toBe(seen.length)
    const { users } = await data('/user/list', {})
    expect(users.map((u: { xcUserID: string }) => u.xcUserID)).not.toContain('')

    await data('/user/update', { xcUserID: 'list-1', email: 'one@example.com', username: 'one' })
    const updated = await data('/user/update', { xcUserID: 'list-1', fullName: 'Number One', username: '' })
    expect(updated.user).toMatchObject({ fullname: 'Number One', email: 'one@example.com', username: '' })
  })

  test('deactivate: the socket closes, tokens are refused, tickets too (40301); reactivate lets them back', async () => {
    const bob = await org.signIn('bob')
    const socket = await connect(server().url, bob.accessToken)
    // A ticket issued before the deactivation is spent without a session.
    const early = await requestTicket(server(), org.serverKey, 'bob')

    const reply = await data('/user/deactivate', { xcUserID: 'bob' })
    expect(reply.user).toMatchObject({
      userID: bob.userID,
      deactivated: true,
      deactivatedTime: expect.any(Number),
    })
    expect((await socket.closed).code).toBe(4001)
    expect((await bob.call('/v1/chat/message/room_list_and_unread')).json.error.code).toBe('40103')
    const refresh = await server().post('/v1/auth/access_token/refresh', undefined, bearer(bob.refreshToken))
    expect(refresh.json.error.code).toBe('40103')
    expect((await exchange(early.ticket)).json.error).toMatchObject({
      code: '40103',
      message: 'user is deactivated',
    })
    const ticket = await server().post(
      `${S}/auth_ticket/request`,
      {
        userIPAddress: '203.0.113.7',
        userAgent: 'x',
        userPlatform: 'web',
        userDeviceID: 'd',
        xcUserID: 'bob',
        fullName: 'Bob',
      },
      { 'server-key': org.serverKey },
    )
    expect(ticket.status).toBe(403)
    expect(ticket.json.error).toEqual({ code: '40301', message: 'User bob is deactivated', field: '105' })
    // Deactivating again changes nothing; it is audited once, naming the server key.
    await data('/user/deactivate', { userID: bob.userID })
    const entries = await audit('user.deactivate')
    expect(entries).toHaveLength(1)
    expect(entries[0]).toMatchObject({
      actor: `server_key:${org.serverKeyID}`,
      detail: { userID: bob.userID },
    })

    expect((await data('/user/reactivate', { xcUserID: 'bob' })).user.deactivated).toBe(false)
    const again = await org.signIn('bob')
    expect(again.userID).toBe(bob.userID)
    expect((await again.call('/v1/chat/message/room_list_and_unread')).status).toBe(200)
  })

  test('revoke_sessions signs a user out everywhere; they may sign in again', async () => {
    const carol = await org.signIn('carol')
    const second = await org.signIn('carol')
    const socket = await connect(server().url, carol.accessToken)
    expect((await data('/user/revoke_sessions', { userID: carol.userID })).sessionsRevoked).toBe(2)
    expect((await socket.closed).code).toBe(4001)
    expect((await second.call('/v1/chat/message/room_list_and_unread')).json.error.code).toBe('40103')
    expect((await (await org.signIn('carol')).call('/v1/chat/message/room_list_and_unread')).status).toBe(200)
  })

  describe('delete (erasure)', () => {
    let dave: TestClient
    let erin: TestClient

    test('with an open socket and an open case: socket closed, case closed, profile gone, messages erased', async () => {
      dave = await org.signIn('dave')
      erin = await org.signIn('erin')
      const agent = await signInAgent(server(), org.organizationID, 'ada@shop.example')
      await agent.call('/agent/set_status', { status: 'online' })
      const agentSocket = await connect(server().url, agent.token)
      const sent = await dave.call('/v1/chat/message/send', {
        recipientUserID: erin.userID,
        localID: 'd-1',
        type: 1001,
        body: 'my secret address',
      })
      const roomID = sent.json.data.message.roomID
      const uploaded = await upload(server(), '/v1/chat/file/upload', await png(20, 20), {
        fileName: 'passport.png',
        type: 'image/png',
        headers: bearer(dave.accessToken),
      })
      const withFile = await dave.call('/v1/chat/message/send', {
        recipientUserID: erin.userID,
        localID: 'd-2',
        type: 1002,
        data: { fileID: uploaded.json.data.file.fileID },
      })
      const fileURL = withFile.json.data.message.data.url
      expect((await download(server(), fileURL)).status).toBe(200)
      const opened = await openCase(dave, 'please help, my phone is +44 7700 900123')
      const socket = await connect(server().url, dave.accessToken)

      const reply = await data('/user/delete', { xcUserID: 'dave' })
      expect(reply.deletion).toEqual({
        userID: dave.userID,
        sessionsRevoked: 1,
        casesClosed: 1,
        messagesErased: 3,
      })
      // The file's bytes are gone with its message.
      expect((await download(server(), fileURL)).status).toBe(404)
      expect((await socket.closed).code).toBe(4001)
      expect((await dave.call('/v1/chat/message/room_list_and_unread')).json.error.code).toBe('40103')
      // The case is closed by the system, and its agent heard of it.
      const closed = await data('/case/get', { caseID: opened.caseID })
      // What the case quoted of them is erased too.
      expect(closed.case).toMatchObject({ status: 'closed', closedBy: 'system', firstMessage: '' })
      await agentSocket.waitUntil((f) => f.eventName === 'case/update' && f.data.status === 'closed')
      await agentSocket.close()
      // The profile is gone: the user does not exist for the server API, a second delete is 40401.
      expect((await call('/user/get', { userID: dave.userID })).json.error.code).toBe('40401')
      expect((await call('/user/delete', { userID: dave.userID })).json.error.code).toBe('40401')
      expect((await call('/user/get', { xcUserID: 'dave' })).json.error.code).toBe('40401')
      // No one adds them to a room or writes to them any more.
      const room = await call('/room/create', { name: 'x', userIDs: [erin.userID, dave.userID] })
      expect(room.json.error).toMatchObject({ code: '40401', message: `User ${dave.userID} not found` })
      const toDave = await erin.call('/v1/chat/message/send', {
        recipientUserID: dave.userID,
        localID: 'e-1',
        type: 1001,
        body: 'still there?',
      })
      expect(toDave.json.error.code).toBe('40401')
      const row = await server()
        .testDatabase.database.db.selectFrom('users')
        .selectAll()
        .where('id', '=', dave.userID)
        .executeTakeFirstOrThrow()
      expect(row).toMatchObject({
        full_name: '',
        email: '',
        phone: '',
        username: '',
        deleted_at: expect.any(Number),
      })
      expect(row.xc_user_id).not.toContain('dave')
      // Erin reads the message erased, from "Deleted user".
      const history = await erin.call('/v1/chat/message/list_by_room/before', { roomID })
      const [message, fileMessage] = history.json.data.messages
      expect(fileMessage).toMatchObject({ isDeleted: true, type: 1002 })
      expect(fileMessage.data).toEqual({})
      expect(message).toMatchObject({
        isDeleted: true,
        body: '',
        user: { fullname: 'Deleted user', xcUserID: '' },
      })
      const bodies = await server()
        .testDatabase.database.db.selectFrom('messages')
        .select('body')
        .where('sender_id', '=', dave.userID)
        .execute()
      expect(bodies.every((m) => m.body === '')).toBe(true)
      // Audited, without the erased profile.
      const [entry] = await audit('user.delete')
      expect(entry).toMatchObject({
        actor: `server_key:${org.serverKeyID}`,
        detail: { userID: dave.userID, messages: 'erase' },
      })
      expect(JSON.stringify(entry)).not.toContain('dave')
    })

    test('the same xcUserID signs up anew as a new user', async () => {
      const reborn = await org.signIn('dave')
      expect(reborn.userID).not.toBe(dave.userID)
      expect((await data('/user/get', { xcUserID: 'dave' })).user.userID).toBe(reborn.userID)
    })

    test('anonymise keeps the messages under "Deleted user"', async () => {
      const frank = await org.signIn('frank')
      const sent = await frank.call('/v1/chat/message/send', {
        recipientUserID: erin.userID,
        localID: 'f-1',
        type: 1001,
        body: 'kept words',
      })
      const reply = await data('/user/delete', { userID: frank.userID, messages: 'anonymise' })
      expect(reply.deletion).toMatchObject({ casesClosed: 0, messagesErased: 0 })
      const history = await erin.call('/v1/chat/message/list_by_room/before', {
        roomID: sent.json.data.message.roomID,
      })
      expect(history.json.data.messages[0]).toMatchObject({
        body: 'kept words',
        isDeleted: false,
        user: { userID: frank.userID, fullname: 'Deleted user' },
      })
    })

    test("another organization's user cannot be deleted (40401) and stays", async () => {
      const grace = await other.signIn('grace')
      expect((await call('/user/delete', { userID: grace.userID })).json.error.code).toBe('40401')
      expect((await call('/user/get', { userID: grace.userID }, other.serverKey)).status).toBe(200)
    })
  })

  test('export holds the profile, rooms with participants, own messages and cases with their messages', async () => {
    const henry = await org.signIn('henry')
    const ivy = await org.signIn('ivy')
    await henry.call('/v1/chat/message/send', {
      recipientUserID: ivy.userID,
      localID: 'h-1',
      type: 1001,
      body: 'hello ivy',
    })
    await ivy.call('/v1/chat/message/send', {
      recipientUserID: henry.userID,
      localID: 'i-1',
      type: 1001,
      body: 'hi henry',
    })
    const opened = await openCase(henry, 'where is my parcel')
    const exported = (await data('/user/export', { xcUserID: 'henry' })).export
    expect(exported.user).toMatchObject({ userID: henry.userID, xcUserID: 'henry' })
    const personal = exported.rooms.find((room: { type: number }) => room.type === 1)
    expect(personal.userIDs.sort()).toEqual([henry.userID, ivy.userID].sort())
    expect(exported.rooms.some((room: { roomID: string }) => room.roomID === opened.roomID)).toBe(true)
    const bodies = exported.messages.map((m: { body: string }) => m.body)
    expect(bodies).toEqual(['hello ivy', 'where is my parcel'])
    expect(exported.messagesTruncated).toBe(false)
    expect(exported.cases).toHaveLength(1)
    expect(exported.cases[0]).toMatchObject({ caseID: opened.caseID, messagesTruncated: false })
    expect(exported.cases[0].messages.map((m: { body: string }) => m.body)).toContain('where is my parcel')
    expect(typeof exported.exported).toBe('number')
    expect((await call('/user/export', { xcUserID: 'henry' }, other.serverKey)).json.error.code).toBe('40401')
  })
})
