import { afterEach, expect, test } from 'vitest'
import WebSocket from 'ws'
import { CLOSE_TOO_MANY_SOCKETS } from '../../src/realtime/gateway.js'
import { useServer } from '../support/app.js'
import { bearer, createOrganization, signIn } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect, refusedUpgrade, type TestSocket, wsURL } from '../support/sockets.js'

// Sockets on /connect (docs/reference/limits.md): at most SOCKETS_PER_SESSION per session and
// SOCKETS_PER_USER per user on an instance; a new socket over either is closed at once with 4009
// and the open ones are left alone. Upgrades count towards CONNECTIONS_PER_ADDRESS before their
// credential is read.

const open: TestSocket[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((socket) => socket.close()))
})

async function socketOf(url: string, token: string): Promise<TestSocket> {
  const socket = await connect(url, token)
  open.push(socket)
  return socket
}

/**
 * Whether the server kept the socket: it answers a frame (a typing notice for a room that does
 * not exist is answered with an error), or it closes the socket first (with its close code).
 */
async function kept(socket: TestSocket): Promise<true | number> {
  socket.send({ eventName: 'chat/startTyping', data: { roomID: '1' }, id: 'probe' })
  return Promise.race([
    socket.waitUntil((frame) => frame.id === 'probe').then(() => true as const),
    socket.closed.then(({ code }) => code),
  ])
}

describeEachDatabase('sockets per session and per user', (dialect) => {
  const server = useServer(dialect, { SOCKETS_PER_SESSION: '2', SOCKETS_PER_USER: '3' })

  test('a session over its cap: the newest socket is closed with 4009, the open ones stay', async () => {
    const org = await createOrganization(server(), 'Caps')
    const alice = await org.signIn('alice')
    const first = await socketOf(server().url, alice.accessToken)
    const second = await socketOf(server().url, alice.accessToken)
    const third = await socketOf(server().url, alice.accessToken)
    expect((await third.closed).code).toBe(CLOSE_TOO_MANY_SOCKETS)
    expect(await kept(first)).toBe(true)
    expect(await kept(second)).toBe(true)

    // One closes: the session may open another (once the server has seen the close).
    await first.close()
    let again: true | number = 0
    for (let attempt = 0; attempt < 100 && again !== true; attempt++)
      again = await kept(await socketOf(server().url, alice.accessToken))
    expect(again).toBe(true)
  })

  test('a user over its cap across sessions: the newest socket is closed with 4009', async () => {
    const org = await createOrganization(server(), 'User caps')
    const phone = await org.signIn('bob')
    const laptop = await signIn(server(), org.serverKey, 'bob')
    await socketOf(server().url, phone.accessToken)
    await socketOf(server().url, phone.accessToken)
    const third = await socketOf(server().url, laptop.accessToken)
    expect(await kept(third)).toBe(true)
    const fourth = await socketOf(server().url, laptop.accessToken)
    expect((await fourth.closed).code).toBe(CLOSE_TOO_MANY_SOCKETS)
    // Another user is not affected.
    const carol = await org.signIn('carol')
    expect(await kept(await socketOf(server().url, carol.accessToken))).toBe(true)
  })
})

describeEachDatabase('upgrades per client address', (dialect) => {
  const server = useServer(dialect, { CONNECTIONS_PER_ADDRESS: '2', TRUST_PROXY: '127.0.0.1' })

  test('an address over its cap is refused (429) before its credential is read', async () => {
    const org = await createOrganization(server(), 'Upgrades')
    const dave = await org.signIn('dave')
    const from = (client: string, token: string) => ({ 'x-forwarded-for': client, ...bearer(token) })
    const sockets = [0, 1].map(
      () => new WebSocket(wsURL(server().url), { headers: from('198.51.100.9', dave.accessToken) }),
    )
    try {
      await Promise.all(sockets.map((socket) => new Promise((resolve) => socket.once('open', resolve))))
      // A third from the same client: refused without looking at its (unknown) token.
      const refused = await refusedUpgrade(server().url, from('198.51.100.9', 'not-a-token'))
      expect(refused.status).toBe(429)
      expect(refused.body).toMatchObject({ error: { code: '42900' } })
      // Another client behind the same proxy is let in (an unknown token: 401, not 429).
      expect((await refusedUpgrade(server().url, from('198.51.100.10', 'not-a-token'))).status).toBe(401)
    } finally {
      for (const socket of sockets) socket.terminate()
    }
  })
})
