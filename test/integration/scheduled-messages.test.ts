import { beforeAll, describe, expect, test } from 'vitest'
import { MAX_SCHEDULE_AHEAD_MS } from '../../src/domain/scheduled/scheduled-message.js'
import { type TestServer, useServer } from '../support/app.js'
import { createOrganization, roomHistory, type TestClient } from '../support/clients.js'
import { dialects } from '../support/databases.js'
import { connect } from '../support/sockets.js'

// Scheduled messages through the chat API: created, changed, cancelled, listed, and sent once at
// their time (the injected clock moved on, a scheduler round run by hand) unless their sender may
// no longer send. Several instances and a killed one: scheduled-message-processes.test.ts.

const MINUTE = 60_000

for (const dialect of dialects) {
  describe(`scheduled messages [${dialect}]`, () => {
    const server = useServer(dialect)
    let org: Awaited<ReturnType<typeof createOrganization>>
    let ann: TestClient
    let bob: TestClient
    let cat: TestClient
    let roomID: string
    let n = 0

    const schedule = (client: TestClient, inMs: number, extra: Record<string, unknown> = {}) =>
      client.call('/v1/chat/scheduled_message/create', {
        message: { roomID, localID: `s-${++n}`, type: 1001, body: `later ${n}`, ...extra },
        scheduledTime: server().clock.now() + inMs,
      })
    /** Moves the clock on and runs a scheduler round, as each instance does every second. */
    const due = async (s: TestServer, ms: number) => {
      s.clock.advance(ms)
      await s.app.scheduler.sendDue()
    }

    beforeAll(async () => {
      org = await createOrganization(server())
      ;[ann, bob, cat] = (await Promise.all(['ann', 'bob', 'cat'].map((x) => org.signIn(x)))) as [
        TestClient,
        TestClient,
        TestClient,
      ]
      const created = await ann.call('/v1/client/room/create', {
        name: 'Plans',
        type: 2,
        userIDs: [bob.userID, cat.userID],
      })
      roomID = created.json.data.room.roomID
    })

    test('created, listed, its text and time changed, then sent once at its time', async () => {
      const socket = await connect(server().url, ann.accessToken)
      const created = await schedule(ann, 10 * MINUTE)
      expect(created.status).toBe(200)
      const { scheduled } = created.json.data
      expect(scheduled).toMatchObject({ roomID, status: 'pending', messageID: null })
      expect(scheduled.message).toMatchObject({ body: `later ${n}`, user: { userID: ann.userID } })
      // A retry of the create stores nothing new.
      const again = await ann.call('/v1/chat/scheduled_message/create', {
        message: { roomID, localID: `s-${n}`, type: 1001, body: 'other' },
        scheduledTime: server().clock.now() + MINUTE,
      })
      expect(again.json.data.scheduled.id).toBe(scheduled.id)

      const edited = await ann.call('/v1/chat/scheduled_message/edit_content', {
        id: scheduled.id,
        body: 'See you at 5',
      })
      expect(edited.json.data.scheduled.message.body).toBe('See you at 5')
      const sooner = server().clock.now() + 2 * MINUTE
      const moved = await ann.call('/v1/chat/scheduled_message/edit_scheduled_time', {
        id: scheduled.id,
        scheduledTime: sooner,
      })
      expect(moved.json.data.scheduled.scheduledTime).toBe(sooner)
      const listed = await ann.call('/v1/chat/scheduled_message/get_scheduled_list', { roomID })
      expect(listed.json.data.items.map((i: { id: string }) => i.id)).toEqual([scheduled.id])
      // Another participant's list is their own.
      expect(
        (await bob.call('/v1/chat/scheduled_message/get_scheduled_list', { roomID })).json.data.items,
      ).toEqual([])
      // The sender's other devices hear of each change.
      await socket.waitFor('scheduled/update', 3)

      await due(server(), MINUTE)
      expect((await roomHistory(bob, roomID)).map((m) => m.body)).not.toContain('See you at 5')
      await due(server(), MINUTE)
      await due(server(), MINUTE)
      const bodies = (await roomHistory(bob, roomID)).map((m) => m.body)
      expect(bodies.filter((b) => b === 'See you at 5')).toHaveLength(1)
      const sent = await socket.waitUntil(
        (f) => f.eventName === 'scheduled/update' && f.data.status === 'sent',
      )
      expect(sent.data.messageID).toEqual(expect.any(String))
      expect(
        (await ann.call('/v1/chat/scheduled_message/get_scheduled_list', { roomID })).json.data.items,
      ).toEqual([])
      // Sent: it can no longer change.
      const late = await ann.call('/v1/chat/scheduled_message/edit_content', { id: scheduled.id, body: 'x' })
      expect(late.json.error.code).toBe('40901')
      await socket.close()
    })

    test('send now, and cancel', async () => {
      const a = (await schedule(ann, 3 * MINUTE)).json.data.scheduled
      const b = (await schedule(ann, 3 * MINUTE)).json.data.scheduled
      const now = await ann.call('/v1/chat/scheduled_message/send_now', { roomID, ids: [a.id] })
      expect(now.json.data.messages).toMatchObject([{ body: a.message.body, localID: a.message.localID }])
      const cancelled = await ann.call('/v1/chat/scheduled_message/delete', { roomID, ids: [b.id] })
      expect(cancelled.json.data.items).toMatchObject([{ id: b.id, status: 'cancelled' }])
      await due(server(), 4 * MINUTE)
      const bodies = (await roomHistory(cat, roomID)).map((m) => m.body)
      expect(bodies.filter((x) => x === a.message.body)).toHaveLength(1)
      expect(bodies).not.toContain(b.message.body)
      // Someone else's scheduled message does not exist for them.
      const foreign = await bob.call('/v1/chat/scheduled_message/delete', { roomID, ids: [b.id] })
      expect(foreign.json.error.code).toBe('40401')
    })

    test('in the past, or more than a year ahead: 40002', async () => {
      for (const inMs of [-MINUTE, 0, MAX_SCHEDULE_AHEAD_MS + MINUTE, 10 * MAX_SCHEDULE_AHEAD_MS]) {
        const reply = await schedule(ann, inMs)
        expect(reply.status).toBe(400)
        expect(reply.json.error).toMatchObject({ code: '40002', field: 'scheduledTime' })
      }
      const { id } = (await schedule(ann, MINUTE)).json.data.scheduled
      const past = await ann.call('/v1/chat/scheduled_message/edit_scheduled_time', {
        id,
        scheduledTime: server().clock.now() - 1,
      })
      expect(past.json.error).toMatchObject({ code: '40002', field: 'scheduledTime' })
      await ann.call('/v1/chat/scheduled_message/delete', { roomID, ids: [id] })
      // A message the room would refuse is refused when scheduled.
      expect((await schedule(ann, MINUTE, { body: '' })).json.error).toMatchObject({
        code: '40002',
        field: 'body',
      })
    })

    test('not sent once the sender left the room, or was deactivated', async () => {
      const left = (await schedule(bob, MINUTE)).json.data.scheduled
      await bob.call('/v1/client/room/leave', { roomID })
      const dana = await org.signIn('dana')
      await ann.call('/v1/client/room/participants/add', { roomID, userIDs: [dana.userID] })
      const scheduledRoom = roomID
      const fromDana = (
        await dana.call('/v1/chat/scheduled_message/create', {
          message: { roomID: scheduledRoom, localID: 'dana-1', type: 1001, body: 'from dana' },
          scheduledTime: server().clock.now() + MINUTE,
        })
      ).json.data.scheduled
      const deactivated = await server().post(
        '/v1/server/user/deactivate',
        { userID: dana.userID },
        { 'server-key': org.serverKey },
      )
      expect(deactivated.status).toBe(200)
      await due(server(), 2 * MINUTE)
      const bodies = (await roomHistory(ann, roomID)).map((m) => m.body)
      expect(bodies).not.toContain(left.message.body)
      expect(bodies).not.toContain('from dana')
      const rows = await server()
        .app.database.db.selectFrom('scheduled_messages')
        .select(['id', 'status'])
        .where('id', 'in', [left.id, fromDana.id])
        .execute()
      expect(rows.map((r) => r.status)).toEqual(['dropped', 'dropped'])
    })

    test('two scheduler rounds at once (two instances) send a due message once', async () => {
      const pending = []
      for (let i = 0; i < 10; i++) pending.push((await schedule(ann, MINUTE)).json.data.scheduled)
      server().clock.advance(2 * MINUTE)
      await Promise.all([
        server().app.scheduler.sendDue(),
        server().app.scheduler.sendDue(),
        server().app.scheduler.sendDue(),
      ])
      const bodies = (await roomHistory(ann, roomID)).map((m) => m.body)
      for (const item of pending) expect(bodies.filter((b) => b === item.message.body)).toHaveLength(1)
    })
  })
}
