import { beforeAll, describe, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { createOrganization, type TestClient } from '../support/clients.js'
import { dialects } from '../support/databases.js'
import { connect } from '../support/sockets.js'

// Moderation: users report a message or a user; the organization's admins resolve each report,
// deleting the message or deactivating the user if they choose, every resolution audited. The
// console's page for it: console-moderation.test.ts.

for (const dialect of dialects) {
  describe(`moderation reports [${dialect}]`, () => {
    const server = useServer(dialect)
    let org: Awaited<ReturnType<typeof createOrganization>>
    let ann: TestClient
    let bob: TestClient
    let admin: Awaited<ReturnType<typeof signInAgent>>
    let roomID: string
    let messageID: string

    const auditOf = (action: string) =>
      server()
        .app.database.db.selectFrom('audit_log')
        .selectAll()
        .where('organization_id', '=', org.organizationID)
        .where('action', '=', action)
        .execute()

    beforeAll(async () => {
      org = await createOrganization(server())
      ann = await org.signIn('ann')
      bob = await org.signIn('bob')
      admin = await signInAgent(server(), org.organizationID, 'mod@example.com', { role: 'admin' })
      const sent = await bob.call('/v1/chat/message/send', {
        recipientUserID: ann.userID,
        localID: 'rude',
        type: 1001,
        body: 'something rude',
      })
      ;({ roomID, messageID } = sent.json.data.message)
    })

    test('reports are refused with the documented errors', async () => {
      const own = await bob.call('/v1/client/chat_report/submit_message', {
        messageID,
        roomID,
        category: 'spam',
      })
      expect(own.json.error).toMatchObject({ code: '40002', field: 'messageID' })
      const self = await ann.call('/v1/client/chat_report/submit_user', {
        userID: ann.userID,
        category: 'spam',
      })
      expect(self.json.error).toMatchObject({ code: '40002', field: 'userID' })
      const long = await ann.call('/v1/client/chat_report/submit_user', {
        userID: bob.userID,
        category: 'spam',
        reason: 'x'.repeat(2001),
      })
      expect(long.json.error).toMatchObject({ code: '40002', field: 'reason' })
      const eve = await (await createOrganization(server(), 'Other')).signIn('eve')
      const foreign = await eve.call('/v1/client/chat_report/submit_message', {
        messageID,
        roomID,
        category: 'x',
      })
      expect(foreign.json.error.code).toBe('40401')
      const agent = await signInAgent(server(), org.organizationID, 'agent@example.com')
      expect((await agent.call('/moderation_report/get_list', { status: 'open' })).json.error.code).toBe(
        '40301',
      )
    })

    test('a reported message is deleted by an admin: audited, and the room sees it deleted', async () => {
      const reported = await ann.call('/v1/client/chat_report/submit_message', {
        messageID,
        roomID,
        category: 'harassment',
        reason: 'rude',
      })
      expect(reported.status).toBe(200)
      const queue = (await admin.call('/moderation_report/get_list', { status: 'open' })).json.data
      expect(queue.reports).toMatchObject([
        {
          reportID: reported.json.data.reportID,
          reporter: { userID: ann.userID },
          reportedUser: { userID: bob.userID },
          message: { messageID, body: 'something rude' },
          category: 'harassment',
          status: 'open',
        },
      ])
      const socket = await connect(server().url, ann.accessToken)
      const { reportID } = reported.json.data
      const resolved = await admin.call('/moderation_report/resolve', { reportID, action: 'delete_message' })
      expect(resolved.json.data.report).toMatchObject({ status: 'resolved', resolution: 'message_deleted' })
      const update = await socket.waitUntil((f) => f.eventName === 'chat/updateMessage')
      expect(update.data).toMatchObject({ messageID, isDeleted: true, body: '' })
      await socket.close()
      expect(await auditOf('message.delete')).toHaveLength(1)
      expect(await auditOf('report.resolve')).toHaveLength(1)
      // Twice: 40901.
      const again = await admin.call('/moderation_report/resolve', { reportID, action: 'resolve' })
      expect(again.json.error.code).toBe('40901')
    })

    test('a reported user is deactivated by an admin; another report is only resolved', async () => {
      const first = await ann.call('/v1/client/chat_report/submit_user', {
        userID: bob.userID,
        category: 'spam',
      })
      const second = await ann.call('/v1/client/chat_report/submit_user', {
        userID: bob.userID,
        category: 'spam',
      })
      await admin.call('/moderation_report/resolve', {
        reportID: second.json.data.reportID,
        action: 'resolve',
      })
      const deactivated = await admin.call('/moderation_report/resolve', {
        reportID: first.json.data.reportID,
        action: 'deactivate_user',
      })
      expect(deactivated.json.data.report.resolution).toBe('user_deactivated')
      expect((await bob.call('/v1/client/room/get', { roomID })).status).toBe(401)
      expect(await auditOf('user.deactivate')).toHaveLength(1)
      const resolved = (await admin.call('/moderation_report/get_list', { status: 'resolved' })).json.data
      expect(resolved.reports.map((r: { resolution: string }) => r.resolution)).toEqual([
        'resolved',
        'user_deactivated',
        'message_deleted',
      ])
      expect((await admin.call('/moderation_report/get_list', { status: 'open' })).json.data.reports).toEqual(
        [],
      )
      const wrong = await admin.call('/moderation_report/resolve', { reportID: '1', action: 'resolve' })
      expect(wrong.json.error.code).toBe('40401')
    })

    test('erasing a user erases the words of their reports and their scheduled messages', async () => {
      const carl = await org.signIn('carl')
      await carl.call('/v1/client/chat_report/submit_user', {
        userID: ann.userID,
        category: 'spam',
        reason: 'my words',
      })
      const scheduled = await carl.call('/v1/chat/scheduled_message/create', {
        message: { recipientUserID: ann.userID, localID: 'later', type: 1001, body: 'a secret for later' },
        scheduledTime: server().clock.now() + 60_000,
      })
      expect(scheduled.status).toBe(200)
      const deleted = await server().post(
        '/v1/server/user/delete',
        { userID: carl.userID },
        { 'server-key': org.serverKey },
      )
      expect(deleted.status).toBe(200)
      const db = server().app.database.db
      const reports = await db
        .selectFrom('moderation_reports')
        .select('reason')
        .where('reporter_id', '=', carl.userID)
        .execute()
      expect(reports).toEqual([{ reason: '' }])
      const pending = await db
        .selectFrom('scheduled_messages')
        .select('id')
        .where('sender_id', '=', carl.userID)
        .execute()
      expect(pending).toEqual([])
    })
  })
}
