import { afterAll, beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import { openCase } from '../support/cases.js'
import { createOrganization, roomHistory, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect } from '../support/sockets.js'

// Edits (docs/reference/client-api.md#edits): the sender, within the organization's window;
// everyone sees the new text and `edited` live and in history; the backend hears message.updated;
// the replaced text is kept where the organization asks.
describeEachDatabase('message edits', (dialect) => {
  const server = useServer(dialect)
  let alice: TestClient
  let bob: TestClient
  let admin: Awaited<ReturnType<typeof signInAgent>>
  let roomID: string
  let backend: Awaited<ReturnType<typeof startBot>>

  beforeAll(async () => {
    backend = await startBot(() => 200)
    const org = await createOrganization(server(), 'Edits')
    alice = await org.signIn('alice')
    bob = await org.signIn('bob')
    admin = await signInAgent(server(), org.organizationID, 'admin@example.com', { role: 'admin' })
    const room = await alice.call('/v1/client/room/create', { name: 'Team', type: 2, userIDs: [bob.userID] })
    roomID = room.json.data.room.roomID
  })
  afterAll(async () => {
    await backend.close()
  })

  const send = async (body: string) => {
    const reply = await alice.call('/v1/chat/message/send', { roomID, localID: body, type: 1001, body })
    return reply.json.data.message.messageID as string
  }

  test('the sender edits: others see it live, in history and after a resync; the backend hears it', async () => {
    await admin.call('/admin/event_endpoint/create', {
      url: `${backend.origin}/events`,
      eventTypes: ['message.updated'],
    })
    const messageID = await send('helo')
    const bobSocket = await connect(server().url, bob.accessToken)
    // Bob's sync point: what changes after this, new_and_updated answers.
    await bob.call('/v1/chat/message/room_list_and_unread', {})
    server().clock.advance(1000)
    const edited = await alice.call('/v1/chat/message/edit', { messageID, body: 'hello' })
    expect(edited.status).toBe(200)
    expect(edited.json.data.message).toMatchObject({ messageID, body: 'hello', edited: server().clock.now() })
    const [frame] = await bobSocket.waitFor('chat/updateMessage')
    expect(frame.data).toMatchObject({ messageID, body: 'hello', edited: server().clock.now() })
    const history = await roomHistory(bob, roomID)
    expect(history.find((m) => m.messageID === messageID)).toMatchObject({ body: 'hello' })
    const changes = await bob.call('/v1/chat/message/new_and_updated', {})
    expect(changes.json.data.messages.map((m: { body: string }) => m.body)).toEqual(['hello'])
    await bobSocket.close()
    await server().app.delivery.drain()
    const events = backend.requests.map((r) => r.json as { type: string; data: { message: unknown } })
    expect(events.filter((e) => e.type === 'message.updated').map((e) => e.data.message)).toEqual([
      expect.objectContaining({
        messageID,
        body: 'hello',
        senderID: alice.userID,
        edited: server().clock.now(),
      }),
    ])
  })

  test('an edit over /connect (chat/updateMessage) is answered with the message', async () => {
    const messageID = await send('socket edit')
    const socket = await connect(server().url, alice.accessToken)
    socket.send({ eventName: 'chat/updateMessage', id: 1, data: { messageID, body: 'edited by socket' } })
    const answer = await socket.waitUntil((f) => f.id === 1)
    expect(answer).toMatchObject({
      eventName: 'chat/updateMessage',
      data: { messageID, body: 'edited by socket' },
    })
    await socket.close()
  })

  test('bad edits get the documented errors', async () => {
    const messageID = await send('mine')
    const expectError = async (caller: TestClient, body: unknown, status: number, code: string) => {
      const reply = await caller.call('/v1/chat/message/edit', body)
      expect([reply.status, reply.json.error.code]).toEqual([status, code])
    }
    await expectError(bob, { messageID, body: 'not yours' }, 403, '40301')
    await expectError(alice, { messageID, body: '' }, 400, '40002')
    await expectError(alice, { messageID, body: 'x'.repeat(20_001) }, 400, '40002')
    await expectError(alice, { messageID: '1', body: 'x' }, 404, '40401')
    await expectError(alice, { messageID, roomID: 'elsewhere', body: 'x' }, 404, '40401')
    await alice.call('/v1/chat/message/delete', { roomID, messageIDs: [messageID] })
    await expectError(alice, { messageID, body: 'deleted' }, 400, '40002')
  })

  test('the organization sets the window and keeps the originals when it asks', async () => {
    // By default: 15 minutes, and nothing kept.
    const got = await admin.call('/admin/message_settings/get', {})
    expect(got.json.data).toEqual({ editWindowSeconds: 900, keepEditedOriginals: false })
    const set = await admin.call('/admin/message_settings/set', {
      editWindowSeconds: 60,
      keepEditedOriginals: true,
    })
    expect(set.json.data).toEqual({ editWindowSeconds: 60, keepEditedOriginals: true })
    const messageID = await send('first')
    server().clock.advance(10)
    await alice.call('/v1/chat/message/edit', { messageID, body: 'second' })
    server().clock.advance(10)
    await alice.call('/v1/chat/message/edit', { messageID, body: 'third' })
    const originals = await admin.call('/admin/message_edits/list', { messageID })
    expect(originals.json.data.edits.map((e: { body: string }) => e.body)).toEqual(['first', 'second'])
    server().clock.advance(61_000)
    const late = await alice.call('/v1/chat/message/edit', { messageID, body: 'fourth' })
    expect(late.json.error.code).toBe('40901')
    // At most 100 texts kept for one message.
    const often = await send('often')
    for (let i = 0; i < 100; i++)
      await alice.call('/v1/chat/message/edit', { messageID: often, body: `v${i}` })
    const over = await alice.call('/v1/chat/message/edit', { messageID: often, body: 'one more' })
    expect([over.status, over.json.error.code]).toEqual([409, '40902'])
    const bad = await admin.call('/admin/message_settings/set', {
      editWindowSeconds: -1,
      keepEditedOriginals: true,
    })
    expect(bad.json.error.code).toBe('40002')
    await admin.call('/admin/message_settings/set', { editWindowSeconds: 900, keepEditedOriginals: false })
  })

  test("an edit in a case is what the agents' search finds; a delete takes the kept texts too", async () => {
    await admin.call('/admin/message_settings/set', { editWindowSeconds: 900, keepEditedOriginals: true })
    const opened = await openCase(bob, 'my parcel is lost')
    const first = (await roomHistory(bob, opened.roomID)).find((m) => m.body === 'my parcel is lost')
    const edited = await bob.call('/v1/chat/message/edit', {
      messageID: first.messageID,
      body: 'my xylophone is lost',
    })
    expect(edited.json.data.message.body).toBe('my xylophone is lost')
    const found = async (query: string) =>
      (await admin.call('/case/search', { query })).json.data.cases.map((c: { caseID: string }) => c.caseID)
    expect(await found('xylophone')).toEqual([opened.caseID])
    expect(await found('parcel')).toEqual([])
    const kept = await admin.call('/admin/message_edits/list', { messageID: first.messageID })
    expect(kept.json.data.edits.map((e: { body: string }) => e.body)).toEqual(['my parcel is lost'])
    await bob.call('/v1/chat/message/delete', { roomID: opened.roomID, messageIDs: [first.messageID] })
    const gone = await admin.call('/admin/message_edits/list', { messageID: first.messageID })
    expect(gone.json.data.edits).toEqual([])
    await admin.call('/admin/message_settings/set', { editWindowSeconds: 900, keepEditedOriginals: false })
  })

  test.runIf(dialect === 'postgres')('two edits at once end as one of them, both kept', async () => {
    await admin.call('/admin/message_settings/set', { editWindowSeconds: 900, keepEditedOriginals: true })
    const messageID = await send('race')
    const bodies = Array.from({ length: 10 }, (_, i) => `edit ${i}`)
    const replies = await Promise.all(
      bodies.map((body) => alice.call('/v1/chat/message/edit', { messageID, body })),
    )
    expect(replies.map((r) => r.status)).toEqual(bodies.map(() => 200))
    const [message] = (await roomHistory(bob, roomID)).filter((m) => m.messageID === messageID)
    // Each edit replaced what the one before it wrote: the kept texts and the last one are the
    // first text and all ten, each once (two edits at once would have kept the same text twice).
    const originals = await admin.call('/admin/message_edits/list', { messageID })
    const kept = originals.json.data.edits.map((e: { body: string }) => e.body)
    expect([...kept, message.body].sort()).toEqual(['race', ...bodies].sort())
    await admin.call('/admin/message_settings/set', { editWindowSeconds: 900, keepEditedOriginals: false })
  })
})
