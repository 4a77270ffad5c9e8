import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { startServer, stopServer, type TestServer, useServer } from '../support/app.js'
import { openCase } from '../support/cases.js'
import { createOrganization, roomHistory, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect, type TestSocket } from '../support/sockets.js'

type Agent = Awaited<ReturnType<typeof signInAgent>>

// Cases watched by those who view them (docs/reference/real-time.md, `case/watch`), and admins
// acting in cases assigned to others (docs/reference/agent-api.md#message-actions-in-a-case).

/** A new visitor's case, taken by `holder`, with a reply of theirs. */
async function takenCase(
  org: { signIn: (xcUserID: string) => Promise<TestClient> },
  holder: Agent,
  text: string,
) {
  const visitor = await org.signIn(text.replaceAll(' ', '-'))
  const opened = await openCase(visitor, text)
  expect((await holder.call('/case/take', { id: opened.caseID })).status).toBe(200)
  const reply = await holder.call('/case/send_message', {
    id: opened.caseID,
    localID: `${text}-reply`,
    messageType: 'text',
    text: { body: 'Let me lok' },
  })
  return { ...opened, visitor, replyID: reply.json.data.message.messageID as string }
}

/** Watches the case on the socket; resolves with the answer's data (or the error frame). */
async function watch(socket: TestSocket, caseID: string, id = `watch-${caseID}`) {
  socket.send({ eventName: 'case/watch', id, data: { id: caseID } })
  return socket.waitUntil((f) => f.id === id)
}

const updated = (socket: TestSocket, test: (message: Record<string, unknown>) => boolean) =>
  socket.waitUntil((f) => f.eventName === 'chat/updateMessage' && test(f.data))

describeEachDatabase('watching a case', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let holder: Agent
  let admin: Agent
  let colleague: Agent

  beforeAll(async () => {
    org = await createOrganization(server(), 'Watchers')
    holder = await signInAgent(server(), org.organizationID, 'holder@example.com')
    admin = await signInAgent(server(), org.organizationID, 'boss@example.com', { role: 'admin' })
    colleague = await signInAgent(server(), org.organizationID, 'colleague@example.com')
  })

  test('those viewing a case assigned to another agent see its changes live', async () => {
    const c = await takenCase(org, holder, 'my parcel is late')
    const [adminSocket, colleagueSocket] = await Promise.all([
      connect(server().url, admin.token),
      connect(server().url, colleague.token),
    ])
    for (const socket of [adminSocket, colleagueSocket])
      expect((await watch(socket, c.caseID)).data).toEqual({ caseID: c.caseID, roomID: c.roomID })

    await holder.call('/case/message/edit', { id: c.caseID, messageID: c.replyID, body: 'Let me look' })
    const visitorMessage = (await roomHistory(c.visitor, c.roomID)).find(
      (m) => m.body === 'my parcel is late',
    )
    await holder.call('/case/message/reaction/toggle', {
      id: c.caseID,
      messageID: visitorMessage.messageID,
      emoji: '👍',
    })
    await holder.call('/case/message/pin', { id: c.caseID, messageIDs: [c.replyID] })
    await c.visitor.call('/api/visitor/v1/client/case/send_message', {
      id: c.caseID,
      localID: 'more',
      messageType: 'text',
      text: { body: 'Thanks' },
    })
    await holder.call('/case/add_note', { id: c.caseID, localID: 'n1', text: 'VIP' })
    await holder.call('/case/close', { id: c.caseID })
    for (const socket of [adminSocket, colleagueSocket]) {
      await updated(socket, (m) => m.messageID === c.replyID && m.body === 'Let me look')
      await updated(socket, (m) => (m.reactions as unknown[]).length === 1)
      await updated(socket, (m) => m.messageID === c.replyID && m.isPinned === true)
      await socket.waitUntil((f) => f.eventName === 'chat/sendMessage' && f.data.body === 'Thanks')
      await socket.waitUntil((f) => f.eventName === 'case/note' && f.data.note.text === 'VIP')
      await socket.waitUntil((f) => f.eventName === 'case/update' && f.data.status === 'closed')
    }

    // Once unwatched, the case's news no longer comes.
    colleagueSocket.send({ eventName: 'case/unwatch', id: 'u', data: { id: c.caseID } })
    await colleagueSocket.waitUntil((f) => f.id === 'u')
    const heard = colleagueSocket.frames.length
    await holder.call('/case/message/unpin', { id: c.caseID, messageIDs: [c.replyID] })
    await updated(adminSocket, (m) => m.messageID === c.replyID && m.isPinned === false)
    const unpinned = (f: { eventName: string; data: { messageID?: string; isPinned?: boolean } }) =>
      f.eventName === 'chat/updateMessage' && f.data.messageID === c.replyID && f.data.isPinned === false
    expect(colleagueSocket.frames.slice(heard).filter(unpinned)).toEqual([])
    await Promise.all([adminSocket.close(), colleagueSocket.close()])
  })

  test('a case of another organization cannot be watched, and a watcher hears each frame once', async () => {
    const c = await takenCase(org, holder, 'where is it')
    const elsewhere = await createOrganization(server(), 'Elsewhere')
    const stranger = await signInAgent(server(), elsewhere.organizationID, 'stranger@example.com', {
      role: 'admin',
    })
    const strangerSocket = await connect(server().url, stranger.token)
    expect((await watch(strangerSocket, c.caseID)).data).toMatchObject({
      status: 404,
      error: { code: '40401' },
    })

    // The case's own agent watching it (as the console does) is not told twice.
    const holderSocket = await connect(server().url, holder.token)
    await watch(holderSocket, c.caseID)
    await holder.call('/case/message/edit', { id: c.caseID, messageID: c.replyID, body: 'Found it' })
    const seen = await holderSocket.framesThrough((f) => f.eventName === 'chat/updateMessage')
    await holder.call('/case/message/pin', { id: c.caseID, messageIDs: [c.replyID] })
    await updated(holderSocket, (m) => m.isPinned === true)
    const edits = holderSocket.frames.filter((f) => f.data?.body === 'Found it' && !f.data.isPinned)
    expect([seen.at(-1).data.body, edits.length]).toEqual(['Found it', 1])
    await Promise.all([strangerSocket.close(), holderSocket.close()])
  })

  test('a socket watches at most 20 cases at once', async () => {
    const socket = await connect(server().url, colleague.token)
    const cases = []
    for (let i = 0; i < 21; i++) cases.push(await openCase(await org.signIn(`many-${i}`), 'hello'))
    for (const c of cases.slice(0, 20)) expect((await watch(socket, c.caseID)).eventName).toBe('case/watch')
    const last = cases[20]?.caseID as string
    expect((await watch(socket, last)).data).toMatchObject({ status: 409, error: { code: '40901' } })
    socket.send({ eventName: 'case/unwatch', id: 'u', data: { id: cases[0]?.caseID } })
    expect((await watch(socket, last, 'again')).data).toEqual({ caseID: last, roomID: cases[20]?.roomID })
    await socket.close()
  })

  test('admins reply, type, react, pin and edit their own messages in cases assigned to others', async () => {
    const c = await takenCase(org, holder, 'refund please')
    const visitorSocket = await connect(server().url, c.visitor.accessToken)
    const sent = await admin.call('/case/send_message', {
      id: c.caseID,
      localID: 'admin-1',
      messageType: 'text',
      text: { body: 'I am on it too' },
    })
    expect(sent.status).toBe(200)
    const adminReply = sent.json.data.message.messageID as string
    await visitorSocket.waitUntil(
      (f) => f.eventName === 'chat/sendMessage' && f.data.body === 'I am on it too',
    )
    expect((await admin.call('/case/typing', { id: c.caseID, typing: true })).status).toBe(200)
    const statuses = await Promise.all([
      admin.call('/case/message/edit', { id: c.caseID, messageID: adminReply, body: 'I am on it' }),
      admin.call('/case/message/reaction/toggle', { id: c.caseID, messageID: c.replyID, emoji: '✅' }),
      admin.call('/case/message/pin', { id: c.caseID, messageIDs: [c.replyID] }),
    ])
    expect(statuses.map((r) => r.status)).toEqual([200, 200, 200])
    await updated(visitorSocket, (m) => m.body === 'I am on it')
    const history = await roomHistory(c.visitor, c.roomID)
    expect(history.find((m) => m.messageID === c.replyID)).toMatchObject({
      isPinned: true,
      reactions: [{ emoji: '✅', userIDs: [`agent:${admin.id}`] }],
    })

    // Still only their own messages, and not in a closed case; other agents look but do not act.
    const refused = await Promise.all([
      admin.call('/case/message/edit', { id: c.caseID, messageID: c.replyID, body: 'x' }),
      colleague.call('/case/send_message', {
        id: c.caseID,
        localID: 'c-1',
        messageType: 'text',
        text: { body: 'x' },
      }),
      colleague.call('/case/message/pin', { id: c.caseID, messageIDs: [c.replyID] }),
    ])
    expect(refused.map((r) => [r.status, r.json.error.code])).toEqual([
      [403, '40301'],
      [403, '40301'],
      [403, '40301'],
    ])
    await holder.call('/case/close', { id: c.caseID })
    const closed = await admin.call('/case/send_message', {
      id: c.caseID,
      localID: 'admin-2',
      messageType: 'text',
      text: { body: 'late' },
    })
    expect([closed.status, closed.json.error.code]).toEqual([409, '40901'])
    await visitorSocket.close()
  })
})

// Watching crosses instances: the viewer's socket on one, the change made through the other.
describe.skipIf(!(process.env.DATABASE_URL && process.env.REDIS_URL))(
  'watching a case across instances',
  () => {
    let a: TestServer
    let b: TestServer

    beforeAll(async () => {
      const env = { REDIS_URL: process.env.REDIS_URL as string }
      a = await startServer('postgres', env)
      b = await startServer(a.testDatabase, env)
    })
    afterAll(async () => {
      if (b) await stopServer(b, { keepDatabase: true })
      if (a) await stopServer(a)
    })

    test('an admin on one instance sees an edit made through the other, its agent sees it once', async () => {
      const org = await createOrganization(a, 'Two instances')
      const holder = await signInAgent(a, org.organizationID, 'holder@example.com')
      const admin = await signInAgent(a, org.organizationID, 'boss@example.com', { role: 'admin' })
      const c = await takenCase(org, holder, 'across instances')
      const [adminSocket, holderSocket] = await Promise.all([
        connect(b.url, admin.token),
        connect(b.url, holder.token),
      ])
      await Promise.all([watch(adminSocket, c.caseID), watch(holderSocket, c.caseID)])
      await holder.call('/case/message/edit', { id: c.caseID, messageID: c.replyID, body: 'Let me look' })
      await holder.call('/case/message/pin', { id: c.caseID, messageIDs: [c.replyID] })
      for (const socket of [adminSocket, holderSocket]) await updated(socket, (m) => m.isPinned === true)
      await updated(adminSocket, (m) => m.body === 'Let me look')
      const edits = holderSocket.frames.filter((f) => f.data?.body === 'Let me look' && !f.data.isPinned)
      expect(edits).toHaveLength(1)
      await Promise.all([adminSocket.close(), holderSocket.close()])
    })
  },
)
