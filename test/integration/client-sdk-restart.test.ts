import { afterEach, expect, test } from 'vitest'
import { type Message, memoryStorage } from '../../packages/client/src/index.js'
import { send } from '../support/app.js'
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../support/databases.js'
import { freePort, runCLIJSON, type ServerProcess, startServerProcess } from '../support/processes.js'
import { mintTicket, onceInOrder, type Recorded, sdkClient, until } from '../support/sdk.js'

// The client SDK against real server processes (`node dist/main.js`), killed (SIGKILL) and
// started again on the same port and database: the client comes back by itself, reads what it
// missed, and its outbox, kept in the storage object, sends what was written while the server was
// away, each message once, in order, also from a new client on the same storage (a reload).

const processes: ServerProcess[] = []
const databases: TestDatabase[] = []
const clients: Recorded[] = []
afterEach(async () => {
  for (const { client } of clients.splice(0)) client.stop()
  for (const p of processes.splice(0)) {
    p.child.kill('SIGKILL')
    await p.exited
  }
  for (const d of databases.splice(0)) await d.drop()
})

/** A Parley process on a database of its own, and a way to kill it and start it again. */
async function deployment(dialect: TestDatabase['dialect']) {
  const database = await createTestDatabase(dialect)
  databases.push(database)
  const env = { ...(database.env as Record<string, string>), PORT: String(await freePort()) }
  const start = async () => {
    const instance = await startServerProcess(env)
    processes.push(instance)
    return instance
  }
  let instance = await start()
  const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Restarts'], env)
  const { serverKey } = await runCLIJSON(['server-key', 'create', '--org', organizationID], env)
  const url = instance.url
  /** A user signed in over plain HTTP (the other side of the conversation). */
  const signIn = async (xcUserID: string) => {
    const ticket = await mintTicket(url, serverKey, xcUserID)
    const tokens = await post('/v1/auth/access_token/request', undefined, ticket)
    return { userID: tokens.user.userID as string, accessToken: tokens.accessToken as string }
  }
  const post = async (path: string, body: unknown, token: string) => {
    const reply = await send(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    if (reply.status !== 200) throw new Error(`${path}: ${reply.text}`)
    return reply.json.data
  }
  return {
    url,
    signIn,
    post,
    /** An SDK client of `xcUserID` (on `storage`, when given: a reload). */
    client(xcUserID: string, storage = memoryStorage()) {
      const recorded = sdkClient(url, () => mintTicket(url, serverKey, xcUserID), { storage })
      clients.push(recorded)
      return recorded
    },
    kill: async () => {
      instance.child.kill('SIGKILL')
      await instance.exited
    },
    restart: async () => {
      instance = await start()
    },
  }
}

/** Every message of the room, oldest first, as `token`'s user reads it. */
async function history(d: Awaited<ReturnType<typeof deployment>>, token: string, roomID: string) {
  const { messages } = await d.post('/v1/chat/message/list_by_room/after', { roomID, limit: 100 }, token)
  return messages as Message[]
}

describeEachDatabase('the client SDK across server restarts', (dialect) => {
  test('a server restart mid-conversation: what was sent meanwhile is emitted once, in order', async () => {
    const d = await deployment(dialect)
    const bob = await d.signIn('bob')
    const alice = d.client('alice')
    await alice.client.start()
    const { room } = await d.post(
      '/v1/client/room/create',
      { name: 'Chat', type: 2, userIDs: [alice.client.user?.userID] },
      bob.accessToken,
    )
    const say = (body: string) =>
      d.post(
        '/v1/chat/message/send',
        { roomID: room.roomID, localID: body, type: 1001, body },
        bob.accessToken,
      )
    alice.client.watch(room.roomID)
    for (const n of [1, 2, 3]) await say(`before ${n}`)
    await until(() => alice.messages.length === 3, 'the messages before the restart')

    // Reconnects wait at their token check until the messages of the gap are in.
    alice.network.hold()
    await d.kill()
    await until(() => alice.client.connectionState !== 'open', 'the socket to close')
    await d.restart()
    for (const n of [1, 2, 3, 4, 5]) await say(`meanwhile ${n}`)
    alice.network.release()
    await until(() => alice.messages.length === 8, 'the messages sent meanwhile')
    await say('after')
    await until(() => alice.messages.length === 9, 'a live message after the reconnect')

    const stored = await history(d, bob.accessToken, room.roomID)
    expect(alice.messages.map((m) => m.messageID)).toEqual(stored.map((m) => m.messageID))
    expect(alice.bodies(room.roomID)).toEqual([
      ...[1, 2, 3].map((n) => `before ${n}`),
      ...[1, 2, 3, 4, 5].map((n) => `meanwhile ${n}`),
      'after',
    ])
    expect(onceInOrder(alice.messages)).toBe(true)
  }, 60_000) // a server process stopped and started again, and a browser

  test('offline sends wait in the stored outbox, then are stored once each, in order; a reload resumes them', async () => {
    const d = await deployment(dialect)
    const bob = await d.signIn('bob')
    const storage = memoryStorage()
    const alice = d.client('alice', storage)
    await alice.client.start()
    const { room } = await d.post(
      '/v1/client/room/create',
      { name: 'Orders', type: 2, userIDs: [alice.client.user?.userID] },
      bob.accessToken,
    )
    alice.client.watch(room.roomID)
    await until(() => alice.network.to('/v1/chat/message/list_by_room/after').length > 0, 'the room read')

    await d.kill()
    const sends = [1, 2, 3].map((n) =>
      alice.client.messages.send({ roomID: room.roomID, body: `offline ${n}` }),
    )
    const outbox = () => JSON.parse(storage.getItem('parley:outbox') ?? '[]') as { body: string }[]
    expect(outbox().map((e) => e.body)).toEqual(['offline 1', 'offline 2', 'offline 3'])
    expect(alice.client.messages.pending(room.roomID).map((e) => e.body)).toEqual(outbox().map((e) => e.body))
    await until(
      () => alice.network.to('/v1/chat/message/send').some((r) => r.code === undefined),
      'a failed send',
    )

    await d.restart()
    const stored = await Promise.all(sends)
    expect(stored.map((m) => m.body)).toEqual(['offline 1', 'offline 2', 'offline 3'])
    expect(outbox()).toEqual([])
    await until(() => alice.messages.length === 3, 'the sent messages emitted')
    expect(alice.bodies(room.roomID)).toEqual(['offline 1', 'offline 2', 'offline 3'])

    // Down again; two more are written, then the page goes away before they could be sent.
    await d.kill()
    for (const n of [4, 5]) void alice.client.messages.send({ roomID: room.roomID, body: `offline ${n}` })
    alice.client.stop()
    expect(outbox().map((e) => e.body)).toEqual(['offline 4', 'offline 5'])

    // The reload: a new client on the same storage, started while the server is still down.
    const reloaded = d.client('alice', storage)
    await reloaded.client.start()
    expect(reloaded.client.user?.userID).toBe(alice.client.user?.userID)
    expect(reloaded.client.messages.pending().map((e) => e.body)).toEqual(['offline 4', 'offline 5'])
    reloaded.client.watch(room.roomID)
    await d.restart()
    await until(() => outbox().length === 0, 'the resumed outbox to empty')
    await until(() => reloaded.messages.length === 5, 'the reloaded client to see the room')

    const all = await history(d, bob.accessToken, room.roomID)
    expect(all.map((m) => m.body)).toEqual([1, 2, 3, 4, 5].map((n) => `offline ${n}`))
    expect(reloaded.messages.map((m) => m.messageID)).toEqual(all.map((m) => m.messageID))
    expect(onceInOrder(reloaded.messages)).toBe(true)
  }, 60_000) // a server process stopped and started again, and a browser
})
