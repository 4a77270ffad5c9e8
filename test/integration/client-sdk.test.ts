import { beforeAll, expect, test, vi } from 'vitest'
import { ParleyError, type PresenceEvent } from '../../packages/client/src/index.js'
import { useServer } from '../support/app.js'
import {
  bearer,
  createOrganization,
  requestTicket,
  roomHistory,
  type TestClient,
} from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import {
  mintTicket,
  onceInOrder,
  type Recorded,
  sdkClient,
  serverSockets,
  until,
  untilOpen,
} from '../support/sdk.js'

// The client SDK (packages/client) against a real Parley in this process: tokens, a dropped
// socket, the outbox's retries, and the chat API's calls. Time on the server is a ManualClock,
// moved past the access token's 15 minutes instead of waiting for them.

const FIFTEEN_MINUTES = 15 * 60_000

describeEachDatabase('the client SDK', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  const ticketFor = (xcUserID: string) => () => mintTicket(server().url, org.serverKey, xcUserID)

  beforeAll(async () => {
    org = await createOrganization(server())
  })

  /** A started SDK client for a new user, and that user's user ID. */
  async function started(xcUserID: string, getTicket = ticketFor(xcUserID)) {
    const recorded = sdkClient(server().url, getTicket)
    await recorded.client.start()
    await untilOpen(recorded)
    return Object.assign(recorded, { userID: recorded.client.user?.userID as string })
  }

  /** A group room of `owner` (a plain API client) with the SDK's user in it. */
  async function sharedRoom(owner: TestClient, member: string): Promise<string> {
    const reply = await owner.call('/v1/client/room/create', { name: 'Talk', type: 2, userIDs: [member] })
    return reply.json.data.room.roomID
  }

  const say = async (from: TestClient, roomID: string, body: string) => {
    const reply = await from.call('/v1/chat/message/send', { roomID, localID: body, type: 1001, body })
    expect(reply.status).toBe(200)
  }

  const stopAfter = (...clients: Recorded[]) => {
    for (const { client } of clients) client.stop()
  }

  test('20 concurrent calls with an expired access token: exactly one refresh, and all 20 succeed', async () => {
    const alice = await started('refresh-alice')
    const refreshesBefore = alice.network.to('/v1/auth/access_token/refresh').length
    server().clock.advance(FIFTEEN_MINUTES + 1000)

    const users = await Promise.all(Array.from({ length: 20 }, () => alice.client.users.get(alice.userID)))

    expect(users.map((u) => u.userID)).toEqual(Array(20).fill(alice.userID))
    expect(alice.network.to('/v1/auth/access_token/refresh').length - refreshesBefore).toBe(1)
    // Each call was refused once (the token had really expired), then retried once.
    const calls = alice.network.to('/v1/client/user/get_by_id')
    expect(calls.filter((c) => c.code === '40104')).toHaveLength(20)
    expect(calls.filter((c) => c.status === 200)).toHaveLength(20)
    stopAfter(alice)
  })

  test('a reconnect with an expired access token refreshes it before the socket opens', async () => {
    const alice = await started('reconnect-alice')
    alice.client.stop()
    server().clock.advance(FIFTEEN_MINUTES + 1000)
    await alice.client.start()
    await untilOpen(alice)
    expect(alice.network.to('/connect').map((r) => r.code)).toEqual(['', '40104', ''])
    expect(alice.network.to('/v1/auth/access_token/refresh')).toHaveLength(1)
    stopAfter(alice)
  })

  test('a refused refresh token: a new ticket from getTicket; when getTicket fails, sessionEnded', async () => {
    let tickets = 0
    let backendUp = true
    const alice = await started('renew-alice', async () => {
      tickets++
      if (!backendUp) throw new Error('the backend is down')
      return ticketFor('renew-alice')()
    })
    expect(tickets).toBe(1)

    // Someone else uses the stored refresh token first: the SDK's copy is now a rotated one, whose
    // use revokes the session (token-theft detection), so only a new ticket helps.
    const stored = JSON.parse(alice.storage.getItem('parley:session') as string)
    const stolen = await server().post(
      '/v1/auth/access_token/refresh',
      undefined,
      bearer(stored.refreshToken),
    )
    expect(stolen.status).toBe(200)
    server().clock.advance(FIFTEEN_MINUTES + 1000)
    const me = await alice.client.users.get(alice.userID)
    expect(me.userID).toBe(alice.userID)
    expect(tickets).toBe(2)
    expect(alice.network.to('/v1/auth/access_token/refresh').map((r) => r.code)).toEqual(['40103'])
    // The revocation closed the socket (4001); it opens again with the new session.
    await until(() => alice.states.at(-1) === 'open' && alice.states.includes('offline'), 'a new socket')
    expect(tickets).toBe(2)

    // Now the session is revoked again and the backend cannot give a ticket.
    backendUp = false
    const current = JSON.parse(alice.storage.getItem('parley:session') as string)
    await server().post('/v1/client/logout', undefined, bearer(current.accessToken))
    const refused = await alice.client.users.get(alice.userID).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ParleyError)
    expect(refused).toMatchObject({ status: 401, code: 'session_ended' })
    await until(() => alice.sessionEnded === 1, 'sessionEnded')
    expect(alice.client.user).toBeUndefined()
    expect(alice.storage.getItem('parley:session')).toBeNull()
    await until(() => alice.client.connectionState === 'offline', 'the socket to stay closed')
    expect(alice.sessionEnded).toBe(1)
  })

  test('a dropped socket (cut off, then closed with 4002): resynced, nothing lost or repeated', async () => {
    const sockets = serverSockets(server().app.server)
    const alice = await started('drop-alice')
    const bob = await org.signIn('drop-bob')
    const roomID = await sharedRoom(bob, alice.userID)
    alice.client.watch(roomID)
    for (const n of [1, 2, 3]) await say(bob, roomID, `live ${n}`)
    await until(() => alice.bodies(roomID).length === 3, 'the live messages')

    const faults: [string, () => void][] = [
      ['dropped', () => sockets.drop()],
      ['4002', () => sockets.close(4002)],
    ]
    for (const [fault, cut] of faults) {
      // Reconnects wait at their token check, so these messages fall in the gap for sure.
      alice.network.hold()
      const reads = alice.network.to('/v1/chat/message/list_by_room/after').length
      cut()
      await until(() => alice.client.connectionState !== 'open', `the socket to drop (${fault})`)
      for (const n of [1, 2, 3, 4, 5]) await say(bob, roomID, `${fault} ${n}`)
      alice.network.release()
      await until(() => alice.bodies(roomID).length === (fault === '4002' ? 13 : 8), `the missed (${fault})`)
      expect(alice.network.to('/v1/chat/message/list_by_room/after').length).toBeGreaterThan(reads)
    }
    await say(bob, roomID, 'live again')
    await until(() => alice.bodies(roomID).at(-1) === 'live again', 'a live message after the resync')

    const history = await roomHistory(bob, roomID)
    expect(alice.messages.map((m) => m.messageID)).toEqual(history.map((m) => m.messageID))
    expect(onceInOrder(alice.messages)).toBe(true)
    stopAfter(alice)
  })

  test('sends go through the outbox: a lost answer is retried with the same localID and stored once', async () => {
    const alice = await started('outbox-alice')
    const bob = await org.signIn('outbox-bob')
    const roomID = await sharedRoom(bob, alice.userID)
    alice.client.watch(roomID)
    await until(() => alice.network.to('/v1/chat/message/list_by_room/after').length > 0, 'the first read')

    alice.network.lose('/v1/chat/message/send')
    const sent = alice.client.messages.send({ roomID, body: 'answer lost' })
    expect(alice.client.messages.pending(roomID).map((p) => p.body)).toEqual(['answer lost'])
    const stored = await sent
    const then = await alice.client.messages.send({ roomID, body: 'next' })

    const attempts = alice.network
      .to('/v1/chat/message/send')
      .map((r) => (r.body as { localID: string }).localID)
    expect(attempts).toEqual([stored.localID, stored.localID, then.localID])
    expect((await roomHistory(bob, roomID)).map((m) => m.body)).toEqual(['answer lost', 'next'])
    await until(() => alice.bodies(roomID).length === 2, 'own messages emitted')
    expect(alice.bodies(roomID)).toEqual(['answer lost', 'next'])
    expect(alice.client.messages.pending()).toEqual([])
    expect(alice.storage.getItem('parley:outbox')).toBe('[]')

    // A refusal is final: the promise rejects with the envelope's error and the entry is dropped.
    const refused = await alice.client.messages
      .send({ roomID, body: 'x'.repeat(20_001) })
      .catch((error: unknown) => error)
    expect(refused).toMatchObject({ status: 400, code: '40002' })
    expect(alice.client.messages.pending()).toEqual([])
    stopAfter(alice)
  })

  test('the chat API: personal rooms, group rooms, history pages, receipts and deletion', async () => {
    const alice = await started('api-alice')
    const bob = await started('api-bob')
    expect(await alice.client.users.getByXcUserID('api-bob')).toMatchObject({ userID: bob.userID })

    const first = await alice.client.messages.send({ recipientUserID: bob.userID, body: 'hi bob' })
    const personal = [alice.userID, bob.userID].sort((a, b) => Number(a) - Number(b)).join('-')
    expect(first.roomID).toBe(personal)
    bob.client.watch(personal)
    await until(() => bob.bodies(personal).length === 1, 'bob to see the message')

    const group = await alice.client.rooms.create({ name: 'Team', userIDs: [] })
    expect((await alice.client.rooms.addParticipants(group.roomID, [bob.userID])).userIDs).toContain(
      bob.userID,
    )
    for (const n of [1, 2, 3]) await alice.client.messages.send({ roomID: group.roomID, body: `g${n}` })
    const latest = await bob.client.messages.listBefore(group.roomID, { limit: 2 })
    expect(latest.messages.map((m) => m.body)).toEqual(['g2', 'g3'])
    expect(latest.hasMore).toBe(true)
    const after = await bob.client.messages.listAfter(group.roomID, {
      minCreated: latest.messages[0]?.created,
    })
    expect(after.messages.map((m) => m.body)).toEqual(['g3'])
    // Following the room from the page bob has: only what is newer is emitted.
    bob.client.watch(group.roomID, { after: latest.messages.at(-1)?.created })
    await alice.client.messages.send({ roomID: group.roomID, body: 'g4' })
    await until(() => bob.bodies(group.roomID).length > 0, 'bob to see g4')
    expect(bob.bodies(group.roomID)).toEqual(['g4'])
    const list = await bob.client.rooms.list()
    expect(list.find((r) => r.room.roomID === group.roomID)).toMatchObject({ unreadCount: 4 })

    // Receipts and deletion reach the sender as messageUpdate of the message it has.
    alice.client.watch(personal)
    await until(() => alice.bodies(personal).length === 1, 'alice to follow the personal room')
    await bob.client.messages.markRead([first.messageID])
    await until(
      () => alice.updates.some((m) => m.messageID === first.messageID && m.isRead),
      'a read receipt',
    )
    await alice.client.messages.delete(personal, [first.messageID])
    await until(
      () => alice.updates.some((m) => m.messageID === first.messageID && m.isDeleted),
      'the deletion',
    )
    expect(alice.bodies(personal)).toEqual(['hi bob'])

    await bob.client.rooms.leave(group.roomID)
    expect((await alice.client.rooms.get(group.roomID)).userIDs).not.toContain(bob.userID)
    stopAfter(alice, bob)
  })

  test('typing and presence reach listeners; typing(roomID) reaches the room', async () => {
    const alice = await started('typing-alice')
    const bob = await started('typing-bob')
    const roomID = (await alice.client.rooms.create({ name: 'T', userIDs: [bob.userID] })).roomID
    const typing: unknown[] = []
    const presence: PresenceEvent[] = []
    alice.client.on('typing', (e) => typing.push(e))
    alice.client.on('presence', (e) => presence.push(e))

    bob.client.typing(roomID, true)
    bob.client.typing(roomID, false)
    await until(() => typing.length === 2, 'two typing events')
    expect(typing).toMatchObject([
      { roomID, user: { userID: bob.userID }, typing: true },
      { roomID, user: { userID: bob.userID }, typing: false },
    ])

    // Bob's coming online when he first connected may reach Alice too, if his announcement
    // looked for his peers after the room was made: look for each status after the one before.
    const bobStatus = (isOnline: boolean, after: number) =>
      presence.findIndex((e, i) => i > after && e.user.userID === bob.userID && e.isOnline === isOnline)
    bob.client.stop()
    await until(() => bobStatus(false, -1) >= 0, 'bob going offline')
    const offline = bobStatus(false, -1)
    await bob.client.start()
    await until(() => bobStatus(true, offline) >= 0, 'bob coming back')
    stopAfter(alice, bob)
  })

  test('prints nothing, and never a token, over a whole session', async () => {
    const printed = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation(() => {}),
    )
    try {
      const alice = await started('quiet-alice')
      server().clock.advance(FIFTEEN_MINUTES + 1000)
      await alice.client.rooms.list()
      await alice.client.logout()
      expect(alice.storage.getItem('parley:session')).toBeNull()
      expect(printed.flatMap((spy) => spy.mock.calls)).toEqual([])
    } finally {
      for (const spy of printed) spy.mockRestore()
    }
  })

  test('logout revokes the session on the server and forgets it here', async () => {
    const alice = await started('logout-alice')
    const { accessToken } = JSON.parse(alice.storage.getItem('parley:session') as string)
    await alice.client.logout()
    const after = await server().post('/v1/client/user/get_by_id', { id: alice.userID }, bearer(accessToken))
    expect(after.json.error.code).toBe('40103')
    expect(alice.client.user).toBeUndefined()
    expect(alice.client.connectionState).toBe('offline')
    // The ticket a backend mints for the user (requestTicket here) signs in again.
    const again = sdkClient(
      server().url,
      async () => (await requestTicket(server(), org.serverKey, 'logout-alice')).ticket,
    )
    await again.client.start()
    expect(again.client.user?.userID).toBe(alice.userID)
    stopAfter(again)
  })
})
