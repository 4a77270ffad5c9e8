import { beforeAll, describe, expect, test } from 'vitest'
import { storeMessage } from '../../src/domain/messages/messages.repository.js'
import { ACCESS_TOKEN_LIFETIME_MS } from '../../src/domain/sessions/access-tokens.js'
import { startServer, stopServer, useServer } from '../support/app.js'
import { createOrganization, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect, refusedUpgrade, type TestSocket } from '../support/sockets.js'

const SEND = '/v1/chat/message/send'
const personalRoomID = (a: string, b: string) => (BigInt(a) < BigInt(b) ? `${a}-${b}` : `${b}-${a}`)

interface ChatFrame {
  eventName: string
  id?: string
  data: { body: string; messageID: string }
}
const messagesIn = (frames: ChatFrame[]) => frames.filter((f) => f.eventName === 'chat/sendMessage')
const bodies = (frames: ChatFrame[]) => messagesIn(frames).map((f) => f.data.body)

describeEachDatabase('/connect WebSocket', (dialect) => {
  // Pings every 100 ms, so a dead client is found within a test.
  const server = useServer(dialect, {}, { realtime: { pingIntervalMs: 100 } })
  let org: Awaited<ReturnType<typeof createOrganization>>

  beforeAll(async () => {
    org = await createOrganization(server())
  })

  const open = (client: TestClient, options = {}) => connect(server().url, client.accessToken, options)

  describe('authentication before the upgrade', () => {
    test('a missing, malformed, invalid or expired token is refused with 401 and the envelope', async () => {
      const url = server().url
      expect(await refusedUpgrade(url, {})).toMatchObject({ status: 401, body: { error: { code: '40101' } } })
      expect(await refusedUpgrade(url, { authorization: 'Token x' })).toMatchObject({
        status: 401,
        body: { error: { code: '40102' } },
      })
      expect(await refusedUpgrade(url, { authorization: 'Bearer nope' })).toEqual({
        status: 401,
        body: {
          status: 401,
          error: { code: '40103', message: 'access token is invalid', field: '' },
          data: {},
        },
      })
      const client = await org.signIn('expired-socket')
      server().clock.advance(ACCESS_TOKEN_LIFETIME_MS)
      expect(await refusedUpgrade(url, { authorization: `Bearer ${client.accessToken}` })).toMatchObject({
        status: 401,
        body: { error: { code: '40104' } },
      })
    })

    test('browsers may pass the token as ?authorization=', async () => {
      const client = await org.signIn('browser')
      const socket = await open(client, { viaQuery: true })
      expect(socket.socket.readyState).toBe(socket.socket.OPEN)
      await socket.close()
    })
  })

  describe('messages', () => {
    test('reach every device of every participant exactly once and in order', async () => {
      const [alicePhone, aliceLaptop, bobPhone, bobLaptop, aliceTablet] = await Promise.all([
        org.signIn('alice'),
        org.signIn('alice'),
        org.signIn('bob'),
        org.signIn('bob'),
        org.signIn('alice'), // no socket: sends the closing marker
      ])
      const sockets = await Promise.all([alicePhone, aliceLaptop, bobPhone, bobLaptop].map((c) => open(c)))
      const laptopSocket = sockets[1] as TestSocket
      const roomID = personalRoomID(alicePhone.userID, bobPhone.userID)

      // 20 over HTTP from Alice's phone, then 5 over her laptop's socket.
      for (let i = 0; i < 20; i++) {
        const reply = await alicePhone.call(SEND, {
          recipientUserID: bobPhone.userID,
          localID: `http-${i}`,
          type: 1001,
          body: `m${i}`,
        })
        expect(reply.status).toBe(200)
      }
      const requestIDs = ['req-20', 'req-21', 'req-22', 'req-23', 'req-24']
      for (let i = 20; i < 25; i++) {
        laptopSocket.send({
          eventName: 'chat/sendMessage',
          id: `req-${i}`,
          data: { roomID, localID: `ws-${i}`, type: 1001, body: `m${i}` },
        })
      }
      // Every send has been answered, so each of the 25 has been announced. A marker sent now is
      // announced after them, and a socket's frames arrive in order: once a socket has the
      // marker, everything announced before it, duplicates included, has arrived too.
      await Promise.all(requestIDs.map((id) => laptopSocket.waitUntil((f) => f.id === id)))
      const marker = await aliceTablet.call(SEND, { roomID, localID: 'end', type: 1001, body: 'end' })
      expect(marker.status).toBe(200)
      const [phone, laptop, bob1, bob2] = (await Promise.all(
        sockets.map((s) =>
          s.framesThrough((f) => f.eventName === 'chat/sendMessage' && f.data.body === 'end'),
        ),
      )) as [ChatFrame[], ChatFrame[], ChatFrame[], ChatFrame[]]

      const all = Array.from({ length: 25 }, (_, i) => `m${i}`).concat('end')
      expect(bodies(bob1)).toEqual(all)
      expect(bodies(bob2)).toEqual(all)
      // Each of Alice's devices has every message once: as an event, or as the answer to its own send.
      expect(bodies(laptop)).toEqual(all)
      expect(bodies(phone)).toEqual(all.slice(20))
      const answers = laptop.filter((f) => f.id !== undefined)
      expect(answers.map((f) => f.id)).toEqual(requestIDs)
      expect(answers[0]?.data).toMatchObject({
        localID: 'ws-20',
        roomID,
        user: { userID: alicePhone.userID },
      })
      // 26 messages, 26 IDs: none was announced twice under another ID either.
      expect(new Set(messagesIn(bob1).map((f) => f.data.messageID)).size).toBe(26)
      await Promise.all(sockets.map((s) => s.close()))
    })

    test('a message stored by an instance that died before announcing it is announced by the retry', async () => {
      const [alice, bob] = await Promise.all([org.signIn('orphan-sender'), org.signIn('orphan-reader')])
      const roomID = personalRoomID(alice.userID, bob.userID)
      expect(
        (await alice.call(SEND, { recipientUserID: bob.userID, localID: 'o1', type: 1001, body: 'hi' }))
          .status,
      ).toBe(200)
      const bobSocket = await open(bob)
      // What the dead instance left behind: the message stored, its announcement never made.
      const stored = await server().testDatabase.database.transaction((trx) =>
        storeMessage(trx, {
          id: server().testDatabase.database.ids.next(),
          roomID,
          senderID: alice.userID,
          localID: 'o2',
          type: 1001,
          body: 'stored, then the instance died',
          searchable: false,
          data: {},
          now: server().clock.now(),
        }),
      )
      // The client, having had no answer, retries on another instance with the same localID.
      const retry = await alice.call(SEND, {
        roomID,
        localID: 'o2',
        type: 1001,
        body: 'stored, then the instance died',
      })
      expect(retry.json.data.message.messageID).toBe(stored?.id)
      const [frame] = await bobSocket.waitFor('chat/sendMessage')
      expect(frame.data).toMatchObject({ messageID: stored?.id, body: 'stored, then the instance died' })
      await bobSocket.close()
    })

    test('a listener that throws costs neither the send nor the other listeners', async () => {
      const [alice, bob] = await Promise.all([org.signIn('thrower-sender'), org.signIn('thrower-reader')])
      const bobSocket = await open(bob)
      const stop = server().app.services.hub.subscribe(() => {
        throw new Error('a broken listener')
      })
      try {
        const reply = await alice.call(SEND, {
          recipientUserID: bob.userID,
          localID: 't1',
          type: 1001,
          body: 'still',
        })
        expect(reply.status).toBe(200)
        expect((await bobSocket.waitFor('chat/sendMessage'))[0].data.body).toBe('still')
        expect(server().logs.some((line) => line.includes('hub: a listener failed'))).toBe(true)
      } finally {
        stop()
      }
      await bobSocket.close()
    })

    test('bad frames are answered with an error frame, echoing the id', async () => {
      const client = await org.signIn('sloppy')
      const socket = await open(client)
      socket.send('{not json')
      socket.send({ eventName: 'chat/levitate', id: 7, data: {} })
      socket.send({ eventName: 'chat/sendMessage', id: 'x', data: { type: 1001, body: 'no room' } })
      const errors = await socket.waitFor('error', 3)
      expect(errors[0]).toEqual({
        eventName: 'error',
        data: {
          status: 400,
          error: { code: '40002', message: 'Frame must be a JSON object', field: '' },
          data: {},
        },
      })
      expect(errors[1]).toMatchObject({
        id: 7,
        data: { error: { message: "Param 'eventName' is invalid", field: 'eventName' } },
      })
      expect(errors[2]).toMatchObject({ id: 'x', data: { error: { code: '40002', field: 'localID' } } })
      await socket.close()
    })
  })

  describe('typing and presence', () => {
    test("typing reaches the room's other participants only", async () => {
      const [dan, eve, fay] = await Promise.all([org.signIn('dan'), org.signIn('eve'), org.signIn('fay')])
      await dan.call(SEND, { recipientUserID: eve.userID, localID: 'hello', type: 1001, body: 'hi' })
      const roomID = personalRoomID(dan.userID, eve.userID)
      const [danSocket, eveSocket, faySocket] = await Promise.all([open(dan), open(eve), open(fay)])

      danSocket.send({ eventName: 'chat/startTyping', data: { roomID } })
      danSocket.send({ eventName: 'chat/stopTyping', data: { roomID } })
      const [started] = await eveSocket.waitFor('chat/startTyping')
      expect(started.data).toMatchObject({ roomID, user: { userID: dan.userID, xcUserID: 'dan' } })
      await eveSocket.waitFor('chat/stopTyping')
      // Not even answered: an answer named like the notice reads, to a client, as typing.
      expect(danSocket.frames.filter((f) => f.eventName.endsWith('Typing'))).toEqual([])

      faySocket.send({ eventName: 'chat/startTyping', data: { roomID } })
      const [refused] = await faySocket.waitFor('error')
      expect(refused.data.error.code).toBe('40301')
      await Promise.all([danSocket, eveSocket, faySocket].map((s) => s.close()))
    })

    test('user/status: online with the first socket, offline after the last, to room peers', async () => {
      const [gus, hal] = await Promise.all([org.signIn('gus'), org.signIn('hal')])
      await gus.call(SEND, { recipientUserID: hal.userID, localID: 'intro', type: 1001, body: 'hey' })
      const halSocket = await open(hal)
      // Hal's own devices hear of Hal first.
      const [own] = await halSocket.waitFor('user/status')
      expect(own.data).toMatchObject({ isOnline: true, user: { userID: hal.userID } })

      const gusFirst = await open(gus)
      const online = (await halSocket.waitFor('user/status', 2))[1]
      expect(online.data).toMatchObject({
        isOnline: true,
        user: { userID: gus.userID },
        lastActive: expect.any(Number),
      })

      const gusSecond = await open(gus)
      await gusFirst.close()
      // Still one socket open: no offline yet. The next status is the one after the last socket.
      await gusSecond.close()
      const statuses = (await halSocket.waitFor('user/status', 3)).slice(1)
      expect(
        statuses.map((s: { data: { isOnline: boolean; user: { userID: string } } }) => [
          s.data.user.userID,
          s.data.isOnline,
        ]),
      ).toEqual([
        [gus.userID, true],
        [gus.userID, false],
      ])
      await halSocket.close()
    })
  })

  describe('ending sockets', () => {
    test("logout closes that session's sockets, and no other", async () => {
      const [session1, session2] = [await org.signIn('ivy'), await org.signIn('ivy')]
      const [socket1, socket2] = await Promise.all([open(session1), open(session2)])
      expect((await session1.call('/v1/client/logout')).status).toBe(200)
      const [revoked] = await socket1.waitFor('session/revoked')
      expect(revoked.data).toEqual({ sessionID: expect.any(String) })
      expect(await socket1.closed).toEqual({ code: 4001, reason: 'session revoked' })
      expect(socket2.socket.readyState).toBe(socket2.socket.OPEN)
      expect(socket2.frames.filter((f) => f.eventName === 'session/revoked')).toEqual([])
      await socket2.close()
    })

    test('a socket that stops answering pings is dropped; a live one stays', async () => {
      const [dead, alive] = await Promise.all([org.signIn('dead-client'), org.signIn('live-client')])
      const deadSocket = await open(dead, { autoPong: false })
      const liveSocket = await open(alive)
      const { code } = await deadSocket.closed
      expect(code).toBe(1006) // terminated, no close handshake
      expect(liveSocket.socket.readyState).toBe(liveSocket.socket.OPEN)
      await liveSocket.close()
    })
  })
})

describeEachDatabase('/connect slow consumers', (dialect) => {
  test('a client that stops reading is cut off', async () => {
    const server = await startServer(dialect, {}, { realtime: { maxBufferedBytes: 64 * 1024 } })
    try {
      const org = await createOrganization(server)
      const [slow, sender] = await Promise.all([org.signIn('slow-reader'), org.signIn('chatty')])
      await sender.call(SEND, { recipientUserID: slow.userID, localID: 'first', type: 1001, body: 'hi' })
      const senderSocket = await connect(server.url, sender.accessToken)
      const slowSocket = await connect(server.url, slow.accessToken)
      // The client stops reading: the kernel's buffers fill, then the server's.
      ;(slowSocket.socket as unknown as { _socket: { pause(): void } })._socket.pause()

      // The sender shares a room with the slow reader, so sees them go offline when cut off.
      let cutOff = false
      const offline = senderSocket
        .waitUntil(
          (f) => f.eventName === 'user/status' && f.data.user.userID === slow.userID && !f.data.isOnline,
          60_000,
        )
        .finally(() => {
          cutOff = true
        })
      // Sent until the cut-off (the kernel's buffers take a few MB first), and no further.
      const big = 'x'.repeat(20_000)
      for (let batch = 0; !cutOff && batch < 2000; batch += 50) {
        await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            sender.call(SEND, {
              recipientUserID: slow.userID,
              localID: `big-${batch + i}`,
              type: 1001,
              body: big,
            }),
          ),
        )
      }
      expect((await offline).data.isOnline).toBe(false)
      await senderSocket.close()
    } finally {
      await stopServer(server)
    }
  }, 90_000) // megabytes of messages stored and pushed until the kernel's buffers are full
})

describeEachDatabase('/connect on shutdown', (dialect) => {
  test('open sockets are closed with 1001', async () => {
    const server = await startServer(dialect)
    const org = await createOrganization(server)
    const client = await org.signIn('leaving')
    const socket = await connect(server.url, client.accessToken)
    await stopServer(server)
    expect(await socket.closed).toEqual({ code: 1001, reason: 'server shutting down' })
  })
})
