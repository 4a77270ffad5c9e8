import { beforeAll, expect, test } from 'vitest'
import { FLOOD_CLOSE_CODE, FRAME_LIMIT_DEFAULTS } from '../../src/realtime/frame-limits.js'
import { useServer } from '../support/app.js'
import { createOrganization, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect, type TestSocket } from '../support/sockets.js'

const SEND = '/v1/chat/message/send'
const personalRoomID = (a: string, b: string) => (BigInt(a) < BigInt(b) ? `${a}-${b}` : `${b}-${a}`)
const { frameBurst, refusedBeforeClose, typingRepeatMs, framesPerSecond } = FRAME_LIMIT_DEFAULTS

describeEachDatabase('/connect frame limits', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>

  beforeAll(async () => {
    org = await createOrganization(server())
  })

  /** Two users who share a personal room, each with a socket. */
  async function pair(name: string) {
    const [alice, bob] = await Promise.all([org.signIn(`${name}-a`), org.signIn(`${name}-b`)])
    await alice.call(SEND, { recipientUserID: bob.userID, localID: 'hello', type: 1001, body: 'hi' })
    const open = (client: TestClient) => connect(server().url, client.accessToken)
    const [aliceSocket, bobSocket] = (await Promise.all([open(alice), open(bob)])) as [TestSocket, TestSocket]
    return { aliceSocket, bobSocket, roomID: personalRoomID(alice.userID, bob.userID) }
  }

  const typingOf = (socket: TestSocket, eventName: string) =>
    socket.frames.filter((f) => f.eventName === eventName && f.id === undefined)

  test('a flood of 5,000 typing frames is refused with 42900, closed with 4008, relayed once; /healthz stays quick', async () => {
    const { aliceSocket, bobSocket, roomID } = await pair('flood')
    const frame = JSON.stringify({ eventName: 'chat/startTyping', data: { roomID } })
    for (let i = 0; i < 5000; i++) aliceSocket.socket.send(frame)
    const started = performance.now()
    const health = await fetch(`${server().url}/healthz`)
    const healthMs = performance.now() - started
    expect(health.status).toBe(200)
    // Before the limit the loop was held for seconds; refusing costs little.
    expect(healthMs).toBeLessThan(500)

    expect(await aliceSocket.closed).toEqual({ code: FLOOD_CLOSE_CODE, reason: 'too many frames' })
    const refused = aliceSocket.frames.filter((f) => f.eventName === 'error')
    expect(refused).toHaveLength(refusedBeforeClose)
    expect(refused[0].data).toEqual({
      status: 429,
      error: { code: '42900', message: 'too many frames; slow down', field: '' },
      data: {},
    })
    // Of the admitted frames (the burst), only the first is news to Bob.
    await bobSocket.waitFor('chat/startTyping')
    expect(typingOf(bobSocket, 'chat/startTyping')).toHaveLength(1)
    await bobSocket.close()
  })

  test('the bucket refills with time: a socket that slows down is served again', async () => {
    const { aliceSocket, bobSocket, roomID } = await pair('refill')
    const frame = { eventName: 'chat/startTyping', data: { roomID } }
    for (let i = 0; i < frameBurst + 1; i++) aliceSocket.send({ ...frame, id: i })
    const [tooMany] = await aliceSocket.waitFor('error')
    expect(tooMany).toMatchObject({ id: frameBurst, data: { error: { code: '42900' } } })

    server().clock.advance(1000)
    for (let i = 0; i < framesPerSecond; i++) aliceSocket.send({ ...frame, id: `later-${i}` })
    const answers = await aliceSocket.waitFor('chat/startTyping', frameBurst + framesPerSecond)
    expect(answers.at(-1)).toMatchObject({ id: `later-${framesPerSecond - 1}`, data: { roomID } })
    expect(aliceSocket.frames.filter((f) => f.eventName === 'error')).toHaveLength(1)
    await Promise.all([aliceSocket.close(), bobSocket.close()])
  })

  test('typing notices are coalesced: a repeat within the window is answered but not relayed', async () => {
    const { aliceSocket, bobSocket, roomID } = await pair('typing')
    const say = async (eventName: string, id: string) => {
      aliceSocket.send({ eventName, id, data: { roomID } })
      await aliceSocket.waitUntil((f) => f.id === id)
    }
    await say('chat/startTyping', 's1')
    await say('chat/startTyping', 's2')
    server().clock.advance(typingRepeatMs - 1)
    await say('chat/startTyping', 's3')
    // A change is news at once; a repeat of it is not.
    await say('chat/stopTyping', 'x1')
    await say('chat/stopTyping', 'x2')
    await say('chat/startTyping', 's4')
    // The same notice after the window: the user is still typing.
    server().clock.advance(typingRepeatMs)
    await say('chat/startTyping', 's5')

    await bobSocket.waitFor('chat/startTyping', 3)
    await bobSocket.waitFor('chat/stopTyping', 1)
    // Alice's answers arrive after Bob's events were published; nothing more is on its way.
    expect(typingOf(bobSocket, 'chat/startTyping')).toHaveLength(3)
    expect(typingOf(bobSocket, 'chat/stopTyping')).toHaveLength(1)
    expect(bobSocket.frames.filter((f) => f.eventName.endsWith('Typing')).map((f) => f.eventName)).toEqual([
      'chat/startTyping',
      'chat/stopTyping',
      'chat/startTyping',
      'chat/startTyping',
    ])
    await Promise.all([aliceSocket.close(), bobSocket.close()])
  })
})
