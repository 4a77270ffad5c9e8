import { beforeAll, expect, test } from 'vitest'
import { type Reply, useServer } from '../support/app.js'
import { bearer, createOrganization, recordEvents, roomHistory, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { download, png } from '../support/uploads.js'

// Group rooms' roles (docs/reference/client-api.md#group-roles): admins and members, the last
// admin, deletion, cleared histories, the customer's room IDs and groups in common.
describeEachDatabase('group roles', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let ada: TestClient
  let bo: TestClient
  let cy: TestClient
  let dee: TestClient

  beforeAll(async () => {
    org = await createOrganization(server(), 'Roles')
    ada = await org.signIn('ada')
    bo = await org.signIn('bo')
    cy = await org.signIn('cy')
    dee = await org.signIn('dee')
  })

  const ok = async (reply: Promise<Reply>) => {
    const { json, text } = await reply
    expect(json.error, text).toEqual({ code: '', message: '', field: '' })
    return json.data
  }
  const refused = async (reply: Promise<Reply>, status: number, code: string) => {
    const { json } = await reply
    expect({ status: json.status, code: json.error.code }, json.error.message).toEqual({ status, code })
    return json.error.message as string
  }
  const group = async (owner: TestClient, members: TestClient[], name = 'Team') =>
    (await ok(owner.call('/v1/client/room/create', { name, type: 2, userIDs: members.map((m) => m.userID) })))
      .room
  const server_ = (path: string, body: unknown) =>
    server().post(`/v1/server${path}`, body, { 'server-key': org.serverKey })

  test('the creator is admin; members change nothing of the room; everyone in it hears the changes', async () => {
    const room = await group(ada, [bo, cy])
    expect(room.adminUserIDs).toEqual([ada.userID])
    const { roomID } = room
    const forbidden = [
      ['/v1/client/room/update', { roomID, name: 'Mine' }],
      ['/v1/client/room/participants/add', { roomID, userIDs: [dee.userID] }],
      ['/v1/client/room/participants/remove', { roomID, userIDs: [cy.userID] }],
      ['/v1/client/room/admins/promote', { roomID, userIDs: [bo.userID] }],
      ['/v1/client/room/admins/demote', { roomID, userIDs: [ada.userID] }],
      ['/v1/client/room/delete', { roomID }],
    ] as const
    for (const [path, body] of forbidden) await refused(bo.call(path, body), 403, '40301')
    expect((await ok(bo.call('/v1/client/room/get', { roomID }))).room).toMatchObject({ name: 'Team' })

    const recorded = recordEvents(server())
    const renamed = (await ok(ada.call('/v1/client/room/update', { roomID, name: 'Crew' }))).room
    expect(renamed).toMatchObject({ name: 'Crew', adminUserIDs: [ada.userID] })
    await refused(ada.call('/v1/client/room/update', { roomID, name: '  ' }), 400, '40002')
    const promoted = (await ok(ada.call('/v1/client/room/admins/promote', { roomID, userIDs: [bo.userID] })))
      .room
    expect(promoted.adminUserIDs).toEqual([ada.userID, bo.userID])
    // Now an admin, bo adds dee and removes cy, who hears of it too.
    await ok(bo.call('/v1/client/room/participants/add', { roomID, userIDs: [dee.userID] }))
    const removed = (
      await ok(bo.call('/v1/client/room/participants/remove', { roomID, userIDs: [cy.userID] }))
    ).room
    expect(removed.userIDs).toEqual([ada.userID, bo.userID, dee.userID])
    await refused(ada.call('/v1/client/room/admins/promote', { roomID, userIDs: [cy.userID] }), 400, '40002')
    recorded.stop()
    const updates = recorded.named('room/update')
    expect(updates.map((u) => (u.event.data as { name: string }).name)).toEqual([
      'Crew',
      'Crew',
      'Crew',
      'Crew',
    ])
    expect(updates[0]?.userIDs).toEqual([ada.userID, bo.userID, cy.userID])
    expect(updates[3]?.userIDs).toEqual([ada.userID, bo.userID, dee.userID, cy.userID])
  })

  test('the last admin cannot leave, be removed or demoted without naming another', async () => {
    const room = await group(ada, [bo, cy])
    const { roomID } = room
    const message = await refused(ada.call('/v1/client/room/leave', { roomID }), 409, '40901')
    expect(message).toMatch(/keeps an admin/)
    await refused(ada.call('/v1/client/room/admins/demote', { roomID, userIDs: [ada.userID] }), 409, '40901')
    await refused(
      ada.call('/v1/client/room/participants/remove', { roomID, userIDs: [ada.userID] }),
      409,
      '40901',
    )
    // A member leaves as before; naming a successor is for admins, and must name a participant.
    await ok(cy.call('/v1/client/room/leave', { roomID }))
    await refused(ada.call('/v1/client/room/leave', { roomID, adminUserID: dee.userID }), 400, '40002')
    await ok(ada.call('/v1/client/room/leave', { roomID, adminUserID: bo.userID }))
    const after = (await ok(bo.call('/v1/client/room/get', { roomID }))).room
    expect(after).toMatchObject({ userIDs: [bo.userID], adminUserIDs: [bo.userID] })
    // Alone in it, the last admin may leave.
    await ok(bo.call('/v1/client/room/leave', { roomID }))
  })

  test('deleting a room: gone for everyone, who hear of it; personal rooms are not groups', async () => {
    const { roomID } = await group(ada, [bo])
    await ok(bo.call('/v1/chat/message/send', { roomID, localID: 'x1', type: 1001, body: 'hi' }))
    const recorded = recordEvents(server())
    await ok(ada.call('/v1/client/room/delete', { roomID }))
    recorded.stop()
    expect(recorded.named('room/delete').map((e) => [e.userIDs, e.event.data])).toEqual([
      [[ada.userID, bo.userID], { roomID }],
    ])
    for (const who of [ada, bo]) {
      await refused(who.call('/v1/client/room/get', { roomID }), 404, '40401')
      const list = await ok(who.call('/v1/chat/message/room_list_and_unread', {}))
      expect(list.rooms.map((r: { room: { roomID: string } }) => r.room.roomID)).not.toContain(roomID)
    }
    await refused(server_('/room/get', { roomID }), 404, '40401')
    await refused(ada.call('/v1/client/room/delete', { roomID }), 404, '40401')
    await ok(
      ada.call('/v1/chat/message/send', { recipientUserID: bo.userID, localID: 'p1', type: 1001, body: 'x' }),
    )
    const personal =
      BigInt(ada.userID) < BigInt(bo.userID) ? `${ada.userID}-${bo.userID}` : `${bo.userID}-${ada.userID}`
    await refused(ada.call('/v1/client/room/delete', { roomID: personal }), 400, '40002')
  })

  test('clearing the chat hides the history for me only, on all my devices', async () => {
    const { roomID } = await group(ada, [bo])
    for (const n of [1, 2, 3])
      await ok(bo.call('/v1/chat/message/send', { roomID, localID: `c${n}`, type: 1001, body: `m${n}` }))
    const recorded = recordEvents(server())
    const cleared = await ok(ada.call('/v1/client/room/clear_chat', { roomIDs: [roomID] }))
    recorded.stop()
    expect(cleared).toEqual({ clearedRoomIDs: [roomID] })
    const [frame] = recorded.named('room/clear')
    expect(frame?.userIDs).toEqual([ada.userID])
    expect(await roomHistory(ada, roomID)).toEqual([])
    const before = await ok(ada.call('/v1/chat/message/list_by_room/before', { roomID }))
    expect(before).toEqual({ messages: [], hasMore: false })
    expect((await roomHistory(bo, roomID)).map((m) => m.body)).toEqual(['m1', 'm2', 'm3'])
    const entry = (await ok(ada.call('/v1/chat/message/room_list_and_unread', {}))).rooms.find(
      (r: { room: { roomID: string } }) => r.room.roomID === roomID,
    )
    expect(entry).toMatchObject({ lastMessage: null, unreadCount: 0 })
    // What comes after is seen.
    server().clock.advance(1)
    await ok(bo.call('/v1/chat/message/send', { roomID, localID: 'c4', type: 1001, body: 'm4' }))
    expect((await roomHistory(ada, roomID)).map((m) => m.body)).toEqual(['m4'])
    const changes = await ok(ada.call('/v1/chat/message/new_and_updated', {}))
    const inRoom = changes.messages.filter((m: { roomID: string }) => m.roomID === roomID)
    expect(inRoom.map((m: { body: string }) => m.body)).toEqual(['m4'])
    await refused(dee.call('/v1/client/room/clear_chat', { roomIDs: [roomID] }), 403, '40301')
  })

  test('xcRoomID: set through the server API, unique in the organization, found by participants', async () => {
    const created = await ok(
      server_('/room/create', {
        name: 'Order 7',
        userIDs: [ada.userID, bo.userID],
        adminUserIDs: [bo.userID],
        xcRoomID: 'order-7',
      }),
    )
    const { roomID } = created.room
    expect(created.room).toMatchObject({ xcRoomID: 'order-7', adminUserIDs: [bo.userID] })
    const found = (await ok(ada.call('/v1/client/room/get_by_xc_room_id', { xcRoomID: 'order-7' }))).room
    expect(found).toMatchObject({ roomID, xcRoomID: 'order-7' })
    await refused(cy.call('/v1/client/room/get_by_xc_room_id', { xcRoomID: 'order-7' }), 403, '40301')
    await refused(ada.call('/v1/client/room/get_by_xc_room_id', { xcRoomID: 'order-8' }), 404, '40401')
    const taken = server_('/room/create', { name: 'Again', userIDs: [cy.userID], xcRoomID: 'order-7' })
    await refused(taken, 409, '40901')
    await refused(
      server_('/room/create', { name: 'X', userIDs: [cy.userID], adminUserIDs: [ada.userID] }),
      400,
      '40002',
    )
    // Without admins, only the server API changes the room.
    const managed = (await ok(server_('/room/create', { name: 'Managed', userIDs: [cy.userID, dee.userID] })))
      .room
    expect(managed.adminUserIDs).toEqual([])
    await refused(cy.call('/v1/client/room/update', { roomID: managed.roomID, name: 'Y' }), 403, '40301')
    const moved = await ok(
      server_('/room/update', { roomID: managed.roomID, name: 'Renamed', xcRoomID: 'order-8' }),
    )
    expect(moved.room).toMatchObject({ name: 'Renamed', xcRoomID: 'order-8' })
    await refused(server_('/room/update', { roomID: managed.roomID, xcRoomID: 'order-7' }), 409, '40901')
    const byCy = (await ok(cy.call('/v1/client/room/get_by_xc_room_id', { xcRoomID: 'order-8' }))).room
    expect(byCy.roomID).toBe(managed.roomID)
  })

  test("the server API's changes of participants are told as room/update, to those taken out too", async () => {
    const { room } = await ok(server_('/room/create', { name: 'Told', userIDs: [ada.userID, bo.userID] }))
    const recorded = recordEvents(server())
    await ok(server_('/room/participants/add', { roomID: room.roomID, userIDs: [cy.userID] }))
    await ok(server_('/room/participants/remove', { roomID: room.roomID, userIDs: [bo.userID] }))
    recorded.stop()
    expect(recorded.named('room/update').map((u) => u.userIDs)).toEqual([
      [ada.userID, bo.userID, cy.userID],
      [ada.userID, cy.userID, bo.userID],
    ])
  })

  test('groups in common: the group rooms both users are in', async () => {
    const org2 = await createOrganization(server(), 'Common')
    const [p, q, r] = [await org2.signIn('p'), await org2.signIn('q'), await org2.signIn('r')]
    const one = await group(p, [q], 'One')
    await group(p, [r], 'Two')
    const three = await group(r, [p, q], 'Three')
    await ok(
      p.call('/v1/chat/message/send', { recipientUserID: q.userID, localID: 'd', type: 1001, body: 'x' }),
    )
    const common = (await ok(p.call('/v1/client/room/groups_in_common', { userID: q.userID }))).rooms
    expect(common.map((room: { name: string }) => room.name)).toEqual(['Three', 'One'])
    expect(common.map((room: { roomID: string }) => room.roomID)).toEqual([three.roomID, one.roomID])
    await refused(p.call('/v1/client/room/groups_in_common', { userID: ada.userID }), 404, '40401')
  })

  test("a room's photo: an admin's upload, on a signed link; a member's is refused", async () => {
    const { roomID } = await group(ada, [bo])
    const photo = async (who: TestClient, bytes: Uint8Array, type = 'image/png') => {
      const form = new FormData()
      form.append('roomID', roomID)
      form.append('file', new Blob([bytes], { type }), 'team.png')
      const reply = await fetch(`${server().url}/v1/client/room/photo/upload`, {
        method: 'POST',
        body: form,
        headers: bearer(who.accessToken),
      })
      return { json: await reply.json() } as Reply
    }
    const image = await png(64, 48)
    const { room } = await ok(photo(ada, image))
    expect(room.imageURL).toMatch(/\/files\/\d+\/file\/team\.png\?expires=\d+&signature=/)
    const got = await download(server(), room.imageURL)
    expect(got.status).toBe(200)
    expect(got.bytes.equals(Buffer.from(image))).toBe(true)
    // Refused before its bytes are taken in: nothing is stored.
    const files = () => server().app.database.db.selectFrom('files').select('id').execute()
    const stored = (await files()).length
    await refused(photo(bo, image), 403, '40301')
    expect((await files()).length).toBe(stored)
    await refused(photo(ada, new TextEncoder().encode('just text'), 'text/plain'), 400, '40002')
    // A URL given instead replaces it, and the uploaded photo is gone.
    await ok(ada.call('/v1/client/room/update', { roomID, imageURL: 'https://example.com/team.png' }))
    expect((await download(server(), room.imageURL)).status).toBe(404)
  })

  test('two admins demoting each other at once: one wins, an admin remains', async () => {
    for (let round = 0; round < 5; round++) {
      const { roomID } = await group(ada, [bo, cy], `Race ${round}`)
      await ok(ada.call('/v1/client/room/admins/promote', { roomID, userIDs: [bo.userID] }))
      const [first, second] = await Promise.all([
        ada.call('/v1/client/room/admins/demote', { roomID, userIDs: [bo.userID] }),
        bo.call('/v1/client/room/admins/demote', { roomID, userIDs: [ada.userID] }),
      ])
      const codes = [first.json.error.code, second.json.error.code].sort()
      expect(codes).toEqual(['', '40301'])
      const { room } = await ok(cy.call('/v1/client/room/get', { roomID }))
      expect(room.adminUserIDs).toHaveLength(1)
    }
  })
})
