import { beforeAll, expect, test } from 'vitest'
import {
  ParleyError,
  type Room,
  type RoomClearedEvent,
  type RoomDeletedEvent,
} from '../../packages/client/src/index.js'
import { useServer } from '../support/app.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { mintTicket, sdkClient, until, untilOpen } from '../support/sdk.js'
import { download, png } from '../support/uploads.js'

// The client SDK's typed calls for group roles and profiles against a real Parley, and the
// room/update, room/delete and room/clear frames as its events.
describeEachDatabase('the client SDK: group roles and profiles', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>

  beforeAll(async () => {
    org = await createOrganization(server(), 'SDK roles')
  })

  async function user(xcUserID: string) {
    const recorded = sdkClient(server().url, () => mintTicket(server().url, org.serverKey, xcUserID))
    const heard = {
      updates: [] as Room[],
      deletes: [] as RoomDeletedEvent[],
      clears: [] as RoomClearedEvent[],
    }
    recorded.client.on('roomUpdate', (room) => heard.updates.push(room))
    recorded.client.on('roomDelete', (event) => heard.deletes.push(event))
    recorded.client.on('roomClear', (event) => heard.clears.push(event))
    await recorded.client.start()
    await untilOpen(recorded)
    return { ...recorded, heard, userID: recorded.client.user?.userID as string }
  }
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => (error instanceof ParleyError ? error.code : String(error)),
    )

  test('rooms: update, admins, leave with a successor, clear, find, delete; each side hears it', async () => {
    const [ann, ben] = [await user('sdk-ann'), await user('sdk-ben')]
    const room = await ann.client.rooms.create({ name: 'Crew', userIDs: [ben.userID] })
    expect(room.adminUserIDs).toEqual([ann.userID])
    expect(await refusal(ben.client.rooms.update(room.roomID, { name: 'Mine' }))).toBe('40301')
    expect((await ann.client.rooms.update(room.roomID, { name: 'Crew 2' })).name).toBe('Crew 2')
    await until(() => ben.heard.updates.some((r) => r.name === 'Crew 2'), 'Ben hears the new name')
    const photo = await ann.client.rooms.uploadPhoto(room.roomID, new Blob([await png(30, 30)]))
    expect((await download(server(), photo.imageURL)).status).toBe(200)
    expect((await ann.client.rooms.promoteAdmins(room.roomID, [ben.userID])).adminUserIDs).toHaveLength(2)
    expect((await ben.client.rooms.demoteAdmins(room.roomID, [ben.userID])).adminUserIDs).toEqual([
      ann.userID,
    ])
    expect(await refusal(ann.client.rooms.leave(room.roomID))).toBe('40901')

    await ann.client.messages.send({ roomID: room.roomID, body: 'before' })
    expect(await ben.client.rooms.clearChat([room.roomID])).toEqual([room.roomID])
    await until(() => ben.heard.clears.some((c) => c.roomID === room.roomID), 'room/clear on Ben')
    expect((await ben.client.messages.listBefore(room.roomID)).messages).toEqual([])
    expect((await ann.client.messages.listBefore(room.roomID)).messages.map((m) => m.body)).toEqual([
      'before',
    ])

    const common = await ben.client.rooms.groupsInCommon(ann.userID)
    expect(common.map((r) => r.roomID)).toEqual([room.roomID])
    expect(await refusal(ben.client.rooms.getByXcRoomID('none'))).toBe('40401')

    await ann.client.rooms.leave(room.roomID, ben.userID)
    expect((await ben.client.rooms.get(room.roomID)).adminUserIDs).toEqual([ben.userID])
    await ben.client.rooms.delete(room.roomID)
    await until(() => ben.heard.deletes.some((d) => d.roomID === room.roomID), 'room/delete on Ben')
    expect(await refusal(ben.client.rooms.get(room.roomID))).toBe('40401')
    ann.client.stop()
    ben.client.stop()
  })

  test('profiles: username lookup, bio, photos', async () => {
    const cat = await user('sdk-cat')
    const dan = await user('sdk-dan')
    const named = await server().post(
      '/v1/server/user/update',
      { userID: cat.userID, username: 'cat.sdk' },
      { 'server-key': org.serverKey },
    )
    expect(named.json.error.code).toBe('')
    expect((await dan.client.users.getByUsername('CAT.SDK', { ignoreCase: true })).userID).toBe(cat.userID)
    expect((await cat.client.users.updateBio('Hello')).bio).toBe('Hello')
    const first = await cat.client.users.uploadPhoto(new Blob([await png(20, 20)]))
    const second = await cat.client.users.uploadPhoto(new Blob([await png(24, 24)]))
    expect(second.imageURL.fullsize).not.toBe(first.imageURL.fullsize)
    const photos = await dan.client.users.photos(cat.userID)
    expect(photos.map((p) => p.isMain)).toEqual([true, false])
    const older = photos[1]?.id as string
    expect((await cat.client.users.setMainPhoto(older)).imageURL).toEqual(first.imageURL)
    expect((await cat.client.users.deletePhoto(older)).imageURL).toEqual(second.imageURL)
    expect(await refusal(dan.client.users.deletePhoto(photos[0]?.id as string))).toBe('40401')
    cat.client.stop()
    dan.client.stop()
  })
  test('rooms.page reads the room list a page at a time, each room once, newest first', async () => {
    const [eve, fay] = [await user('sdk-eve'), await user('sdk-fay')]
    const rooms = []
    for (const name of ['One', 'Two', 'Three']) {
      const room = await eve.client.rooms.create({ name, userIDs: [fay.userID] })
      await eve.client.messages.send({ roomID: room.roomID, body: name })
      rooms.push(room.roomID)
    }
    const first = await fay.client.rooms.page({ limit: 2 })
    expect([first.rooms.map((r) => r.room.roomID), first.hasMore]).toEqual([[rooms[2], rooms[1]], true])
    const second = await fay.client.rooms.page({ limit: 2, after: first.rooms.at(-1) })
    expect([second.rooms.map((r) => r.room.roomID), second.hasMore]).toEqual([[rooms[0]], false])
    eve.client.stop()
    fay.client.stop()
  })
})
