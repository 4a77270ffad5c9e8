import { beforeAll, expect, test } from 'vitest'
import type { RoomState } from '../../packages/client/src/index.js'
import { useServer } from '../support/app.js'
import { createOrganization, signIn, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { mintTicket, type Recorded, sdkClient, until, untilOpen } from '../support/sdk.js'

// The client SDK's typed calls for contacts, blocking and the user's own room state, against a real
// Parley: two devices of one user (a change on one reaches the other as a `roomState` event).
describeEachDatabase('the client SDK: contacts, blocks, room state', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let ben: TestClient
  let laptop: Recorded
  let phone: Recorded
  const heard: RoomState[] = []
  let roomID: string

  beforeAll(async () => {
    org = await createOrganization(server(), 'SDK people')
    ben = await signIn(server(), org.serverKey, 'ben', { phone: '+447700900301' })
    const device = async () => {
      const recorded = sdkClient(server().url, () => mintTicket(server().url, org.serverKey, 'ann'))
      await recorded.client.start()
      return recorded
    }
    laptop = await device()
    phone = await device()
    phone.client.on('roomState', (state) => heard.push(state))
    const sent = await ben.call('/v1/chat/message/send', {
      recipientUserID: laptop.client.user?.userID,
      localID: 'hi',
      type: 1001,
      body: 'hi Ann',
    })
    roomID = sent.json.data.message.roomID
    return () => {
      laptop.client.stop()
      phone.client.stop()
    }
  })

  test('contacts: add, by phone, list, remove', async () => {
    await untilOpen(laptop)
    await untilOpen(phone)
    const { contacts } = laptop.client
    expect((await contacts.add(ben.userID)).userID).toBe(ben.userID)
    await contacts.remove(ben.userID)
    expect(await contacts.list()).toEqual([])
    expect((await contacts.addByPhones(['+44 7700 900301'])).map((u) => u.userID)).toEqual([ben.userID])
    expect((await phone.client.contacts.list()).map((c) => c.user.userID)).toEqual([ben.userID])
  })

  test('blocks: block, list, the blocked user refused (40303), unblock', async () => {
    const { blocks } = laptop.client
    await blocks.block(ben.userID)
    expect(await blocks.userIDs()).toEqual([ben.userID])
    expect((await blocks.list()).map((c) => c.user.userID)).toEqual([ben.userID])
    const refused = await ben.call('/v1/chat/message/send', { roomID, localID: 'no', type: 1001, body: 'no' })
    expect(refused.json.error.code).toBe('40303')
    await blocks.unblock(ben.userID)
    expect(await blocks.list()).toEqual([])
  })

  test('room state: mute, pin, mark as unread; the other device hears each; the room list shows it', async () => {
    const { roomStates, rooms, messages } = laptop.client
    const [muted] = await roomStates.mute([roomID])
    expect(muted).toMatchObject({ roomID, muted: true, mutedUntil: 0 })
    await until(() => heard.some((s) => s.muted), 'the phone to hear the mute')
    expect(await phone.client.roomStates.muted()).toEqual([{ roomID, expiredAt: 0 }])
    await roomStates.unmute([roomID])
    await roomStates.pin([roomID])
    expect(await roomStates.pinnedRoomIDs()).toEqual([roomID])
    const listed = (await phone.client.rooms.list()).find((r) => r.room.roomID === roomID)
    expect(listed?.state).toMatchObject({ muted: false, pinned: true, markedUnread: false })
    await roomStates.unpin([roomID])
    await roomStates.markUnread([roomID])
    expect(await roomStates.unreadRoomIDs()).toEqual([roomID])
    const page = await messages.listBefore(roomID)
    await messages.markRead([page.messages.at(-1)?.messageID as string])
    expect(await roomStates.unreadRoomIDs()).toEqual([])
    await until(() => heard.at(-1)?.markedUnread === false && heard.length >= 6, 'every change on the phone')
    expect((await rooms.list()).find((r) => r.room.roomID === roomID)?.state.markedUnread).toBe(false)
  })
})
