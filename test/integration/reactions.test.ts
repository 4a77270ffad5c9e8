import { beforeAll, expect, test } from 'vitest'
import { useServer } from '../support/app.js'
import { createOrganization, roomHistory, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect } from '../support/sockets.js'

// Reactions (docs/reference/client-api.md#reactions): an emoji per user per message, toggled;
// counts and who, in history and live.
describeEachDatabase('reactions', (dialect) => {
  const server = useServer(dialect)
  let alice: TestClient
  let bob: TestClient
  let roomID: string

  beforeAll(async () => {
    const org = await createOrganization(server(), 'Reactions')
    alice = await org.signIn('alice')
    bob = await org.signIn('bob')
    const room = await alice.call('/v1/client/room/create', { name: 'Team', type: 2, userIDs: [bob.userID] })
    roomID = room.json.data.room.roomID
  })

  const send = async (body: string) => {
    const reply = await alice.call('/v1/chat/message/send', { roomID, localID: body, type: 1001, body })
    return reply.json.data.message.messageID as string
  }
  const toggle = (client: TestClient, messageID: string, emoji: string) =>
    client.call('/v1/chat/message/reaction/toggle', { messageID, emoji })

  test('toggled on and off, with counts and who, live and in history', async () => {
    const messageID = await send('react to me')
    const aliceSocket = await connect(server().url, alice.accessToken)
    await toggle(bob, messageID, '👍')
    await toggle(alice, messageID, '👍')
    const reply = await toggle(bob, messageID, '🎉')
    expect(reply.json.data.message.reactions).toEqual([
      { emoji: '👍', count: 2, userIDs: [bob.userID, alice.userID] },
      { emoji: '🎉', count: 1, userIDs: [bob.userID] },
    ])
    const frames = await aliceSocket.waitFor('chat/updateMessage', 3)
    expect(frames.at(-1).data.reactions).toEqual(reply.json.data.message.reactions)
    await toggle(bob, messageID, '👍')
    await toggle(bob, messageID, '🎉')
    const [message] = (await roomHistory(alice, roomID)).filter((m) => m.messageID === messageID)
    expect(message.reactions).toEqual([{ emoji: '👍', count: 1, userIDs: [alice.userID] }])
    await aliceSocket.close()
  })

  test("an erased user's reactions come off the messages, and their stars go", async () => {
    const org = await createOrganization(server(), 'Erasure')
    const [carol, dave] = [await org.signIn('carol'), await org.signIn('dave')]
    const room = await carol.call('/v1/client/room/create', { name: 'Pair', type: 2, userIDs: [dave.userID] })
    const inRoom = room.json.data.room.roomID as string
    const sent = await carol.call('/v1/chat/message/send', {
      roomID: inRoom,
      localID: 'e',
      type: 1001,
      body: 'hi',
    })
    const messageID = sent.json.data.message.messageID as string
    await toggle(carol, messageID, '👍')
    await toggle(dave, messageID, '👍')
    await toggle(dave, messageID, '🎉')
    await dave.call('/v1/chat/message/star', { roomID: inRoom, messageIDs: [messageID] })
    const before = (await roomHistory(carol, inRoom)).find((m) => m.messageID === messageID)
    expect(before.reactions).toHaveLength(2)
    const deleted = await server().post(
      '/v1/server/user/delete',
      { xcUserID: 'dave' },
      { 'server-key': org.serverKey },
    )
    expect(deleted.status).toBe(200)
    const after = (await roomHistory(carol, inRoom)).find((m) => m.messageID === messageID)
    expect(after.reactions).toEqual([{ emoji: '👍', count: 1, userIDs: [carol.userID] }])
    const stars = await server()
      .testDatabase.database.db.selectFrom('message_stars')
      .selectAll()
      .where('user_id', '=', dave.userID)
      .execute()
    expect(stars).toEqual([])
  })

  test('bad reactions get the documented errors', async () => {
    const messageID = await send('not for everyone')
    const tooLong = await toggle(bob, messageID, 'x'.repeat(10 * 1024))
    expect([tooLong.status, tooLong.json.error]).toEqual([
      400,
      { code: '40002', message: "Param 'emoji' must be at most 32 characters", field: 'emoji' },
    ])
    expect((await toggle(bob, messageID, '')).json.error.code).toBe('40002')
    const stranger = await (await createOrganization(server(), 'Other')).signIn('mallory')
    expect((await toggle(stranger, messageID, '👍')).json.error.code).toBe('40401')
    for (let i = 0; i < 50; i++) await toggle(bob, messageID, `e${i}`)
    const over = await toggle(bob, messageID, 'one more')
    expect([over.status, over.json.error.code]).toEqual([409, '40902'])
  })

  test.runIf(dialect === 'postgres')(
    'the same reaction toggled at once ends as toggled that many times',
    async () => {
      const messageID = await send('race')
      const replies = await Promise.all(Array.from({ length: 7 }, () => toggle(bob, messageID, '❤️')))
      expect(replies.map((r) => r.status)).toEqual(replies.map(() => 200))
      const [message] = (await roomHistory(alice, roomID)).filter((m) => m.messageID === messageID)
      // Seven toggles one after the other: on.
      expect(message.reactions).toEqual([{ emoji: '❤️', count: 1, userIDs: [bob.userID] }])
      await Promise.all([toggle(bob, messageID, '❤️'), toggle(alice, messageID, '❤️')])
      const [after] = (await roomHistory(alice, roomID)).filter((m) => m.messageID === messageID)
      expect(after.reactions).toEqual([{ emoji: '❤️', count: 1, userIDs: [alice.userID] }])
    },
  )
})
