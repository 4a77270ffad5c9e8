import { afterAll, beforeAll, expect, test } from 'vitest'
import { startServer, type TestServer, useServer } from '../support/app.js'
import { bearer, createOrganization, signIn, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { png, upload } from '../support/uploads.js'

// History pages are kept once made (domain/messages/page-cache.ts) and sent again while nothing
// they show has changed. Every change a page shows must show at once, also when another instance
// made it: here a second instance on the same database makes changes behind the first one's back.

const BEFORE = '/v1/chat/message/list_by_room/before'
const HOUR = 3_600_000

describeEachDatabase('history pages', (dialect) => {
  const server = useServer(dialect)
  let other: TestServer
  let org: Awaited<ReturnType<typeof createOrganization>>

  beforeAll(async () => {
    other = await startServer(server().testDatabase)
    org = await createOrganization(server())
  })
  afterAll(async () => {
    await other?.app.close()
  })

  /** The same client, signed in on the other instance. */
  const elsewhere = async (xcUserID: string): Promise<TestClient> => signIn(other, org.serverKey, xcUserID)

  const conversation = async (name: string, count = 3) => {
    const alice = await org.signIn(`alice-${name}`)
    const bob = await org.signIn(`bob-${name}`)
    let roomID = ''
    for (let i = 0; i < count; i++) {
      const [from, to] = i % 2 ? [bob, alice] : [alice, bob]
      const sent = await from.call('/v1/chat/message/send', {
        recipientUserID: to.userID,
        localID: `${name}-${i}`,
        type: 1001,
        body: `message ${i}`,
      })
      roomID = sent.json.data.message.roomID
    }
    const latest = async (client = alice, limit = 10) => {
      const reply = await client.call(BEFORE, { roomID, maxCreated: 0, limit })
      expect(reply.status).toBe(200)
      // biome-ignore lint/suspicious/noExplicitAny: messages are asserted field by field
      return reply.json.data as { messages: Record<string, any>[]; hasMore: boolean }
    }
    return { alice, bob, roomID, latest }
  }

  test('a page read again is the same answer, byte for byte, for either participant', async () => {
    const { bob, roomID, latest } = await conversation('same')
    const first = await latest()
    expect(first.messages.map((m) => m.body)).toEqual(['message 0', 'message 1', 'message 2'])
    const again = await server().post(BEFORE, { roomID, maxCreated: 0, limit: 10 }, bearer(bob.accessToken))
    expect(again.json.data).toEqual(first)
    expect((await latest()).hasMore).toBe(false)
    expect((await latest(undefined, 2)).hasMore).toBe(true)
  })

  test('a message sent through another instance is on the page', async () => {
    const { latest, roomID } = await conversation('new')
    // Signed in first: a sign-in writes the user's profile, which alone makes the page stale.
    const bob = await elsewhere('bob-new')
    await latest()
    await bob.call('/v1/chat/message/send', { roomID, localID: 'late', type: 1001, body: 'late' })
    expect((await latest()).messages.at(-1)?.body).toBe('late')
  })

  test('a message deleted through another instance is deleted on the page', async () => {
    const { latest, roomID } = await conversation('deleted')
    const bob = await elsewhere('bob-deleted')
    const before = await latest()
    const mine = before.messages.find((m) => m.body === 'message 1')
    await bob.call('/v1/chat/message/delete', { roomID, messageIDs: [mine?.messageID] })
    const after = await latest()
    expect(after.messages.find((m) => m.messageID === mine?.messageID)).toMatchObject({
      isDeleted: true,
      body: '',
    })
  })

  test('read and delivered marks made through another instance show on the page', async () => {
    const { latest } = await conversation('receipts')
    const bob = await elsewhere('bob-receipts')
    const before = await latest()
    expect(before.messages.map((m) => m.isRead)).toEqual([false, false, false])
    const lastOfAlice = before.messages.at(-1)?.messageID
    await bob.call('/v1/chat/message/feedback/read', { messageIDs: [lastOfAlice] })
    // Alice's messages are read by Bob; Bob's own is not read by Alice.
    expect((await latest()).messages.map((m) => m.isRead)).toEqual([true, false, true])
  })

  test("a sender's new profile (changed through another instance) shows on the page", async () => {
    const { latest, bob } = await conversation('profile')
    await latest()
    const changed = await other.post(
      '/v1/server/user/update',
      { userID: bob.userID, fullName: 'Robert Renamed' },
      { 'server-key': org.serverKey },
    )
    expect(changed.status).toBe(200)
    const names = (await latest()).messages.map((m) => m.user.fullname)
    expect(names).toEqual(['User alice-profile', 'Robert Renamed', 'User alice-profile'])
  })

  test('someone removed from a group room through another instance cannot read its page', async () => {
    const alice = await org.signIn('alice-group')
    const bob = await org.signIn('bob-group')
    const created = await alice.call('/v1/client/room/create', {
      name: 'Group',
      type: 2,
      userIDs: [bob.userID],
    })
    const { roomID } = created.json.data.room
    await bob.call('/v1/chat/message/send', { roomID, localID: 'g1', type: 1001, body: 'hi all' })
    const page = () => bob.call(BEFORE, { roomID, maxCreated: 0, limit: 10 })
    const aliceElsewhere = await elsewhere('alice-group')
    expect((await page()).status).toBe(200)
    await aliceElsewhere.call('/v1/client/room/participants/remove', {
      roomID,
      userIDs: [bob.userID],
    })
    expect((await page()).status).toBe(403)
  })

  test("a file's links are made anew when the hour of the links made before is over", async () => {
    const { alice, bob, roomID, latest } = await conversation('links', 1)
    const uploaded = await upload(server(), '/v1/chat/file/upload', await png(20, 10), {
      fileName: 'dot.png',
      type: 'image/png',
      headers: bearer(alice.accessToken),
    })
    await alice.call('/v1/chat/message/send', {
      roomID,
      localID: 'file',
      type: 1002,
      body: '',
      data: { fileID: uploaded.json.data.file.fileID },
    })
    const linkNow = (await latest(bob)).messages.at(-1)?.data.url as string
    const expiresOf = (url: string) => Number(new URL(url).searchParams.get('expires'))
    server().clock.advance(HOUR)
    // Signed in anew: an access token lasts less than an hour.
    const bobLater = await org.signIn('bob-links')
    const linkLater = (await latest(bobLater)).messages.at(-1)?.data.url as string
    expect(expiresOf(linkLater)).toBe(expiresOf(linkNow) + HOUR)
  })
})
