import { beforeAll, expect, test } from 'vitest'
import { useServer } from '../support/app.js'
import { createOrganization, roomHistory, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect } from '../support/sockets.js'

// Threads (docs/reference/client-api.md#threads): a reply names its thread's first message, which
// counts its replies; the thread pages like a room; the quote stays what it was.
describeEachDatabase('threads', (dialect) => {
  const server = useServer(dialect)
  let alice: TestClient
  let bob: TestClient
  let roomID: string

  beforeAll(async () => {
    const org = await createOrganization(server(), 'Threads')
    alice = await org.signIn('alice')
    bob = await org.signIn('bob')
    const room = await alice.call('/v1/client/room/create', { name: 'Team', type: 2, userIDs: [bob.userID] })
    roomID = room.json.data.room.roomID
  })

  const send = async (client: TestClient, body: string, extra: Record<string, unknown> = {}) => {
    const reply = await client.call('/v1/chat/message/send', {
      roomID,
      localID: body,
      type: 1001,
      body,
      ...extra,
    })
    return reply.json.data.message
  }

  test('replies count on the first message, live; the thread pages oldest first', async () => {
    const first = await send(alice, 'a question')
    const aliceSocket = await connect(server().url, alice.accessToken)
    const replies = []
    for (let i = 0; i < 5; i++) {
      server().clock.advance(1)
      replies.push(await send(bob, `answer ${i}`, { threadID: first.messageID }))
    }
    expect(replies[0]).toMatchObject({ threadID: first.messageID, replyCount: 0 })
    const counts = await aliceSocket.waitFor('chat/updateMessage', 5)
    expect(counts.map((f) => [f.data.messageID, f.data.replyCount])).toEqual(
      [1, 2, 3, 4, 5].map((n) => [first.messageID, n]),
    )
    await aliceSocket.close()
    const history = await roomHistory(alice, roomID)
    expect(history.find((m) => m.messageID === first.messageID).replyCount).toBe(5)
    const latest = await alice.call('/v1/chat/message/thread/list', { threadID: first.messageID, limit: 3 })
    expect(latest.json.data.messages.map((m: { body: string }) => m.body)).toEqual([
      'answer 2',
      'answer 3',
      'answer 4',
    ])
    expect(latest.json.data.hasMore).toBe(true)
    const older = await alice.call('/v1/chat/message/thread/list', {
      threadID: first.messageID,
      maxCreated: latest.json.data.messages[0].created,
    })
    expect(older.json.data).toMatchObject({ hasMore: false })
    expect(older.json.data.messages.map((m: { body: string }) => m.body)).toEqual(['answer 0', 'answer 1'])
    const after = await alice.call('/v1/chat/message/thread/list', {
      threadID: first.messageID,
      minCreated: replies[3].created,
    })
    expect(after.json.data.messages.map((m: { body: string }) => m.body)).toEqual(['answer 4'])
  })

  test('a quote with a reply in a thread stays as it was', async () => {
    const first = await send(alice, 'quoted')
    const reply = await send(bob, 'quoting', {
      threadID: first.messageID,
      replyTo: first.messageID,
      quote: { title: 'Alice', content: 'quoted' },
    })
    expect(reply).toMatchObject({
      replyTo: first.messageID,
      threadID: first.messageID,
      quote: { content: 'quoted' },
    })
  })

  test('bad threads get the documented errors', async () => {
    const first = await send(alice, 'start')
    const inThread = await send(bob, 'in thread', { threadID: first.messageID })
    const nested = await alice.call('/v1/chat/message/send', {
      roomID,
      localID: 'nested',
      type: 1001,
      body: 'x',
      threadID: inThread.messageID,
    })
    expect([nested.status, nested.json.error.code, nested.json.error.field]).toEqual([
      400,
      '40002',
      'threadID',
    ])
    const unknown = await alice.call('/v1/chat/message/send', {
      roomID,
      localID: 'u',
      type: 1001,
      body: 'x',
      threadID: '1',
    })
    expect(unknown.json.error.code).toBe('40002')
    const list = await alice.call('/v1/chat/message/thread/list', { threadID: inThread.messageID })
    expect(list.json.error.code).toBe('40002')
    const stranger = await (await createOrganization(server(), 'Other')).signIn('mallory')
    const hidden = await stranger.call('/v1/chat/message/thread/list', { threadID: first.messageID })
    expect(hidden.json.error.code).toBe('40401')
  })
})
