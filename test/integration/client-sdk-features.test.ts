import { beforeAll, expect, test } from 'vitest'
import type { ScheduledMessage } from '../../packages/client/src/index.js'
import { useServer } from '../support/app.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { mintTicket, sdkClient, until, untilOpen } from '../support/sdk.js'

// The client SDK's scheduled messages (with their `scheduled` event), read details, shared
// content and reports against a real Parley.

describeEachDatabase(
  'the client SDK: scheduled messages, read details, shared content, reports',
  (dialect) => {
    const server = useServer(dialect)
    let org: Awaited<ReturnType<typeof createOrganization>>
    beforeAll(async () => {
      org = await createOrganization(server(), 'Features')
    })
    async function user(xcUserID: string) {
      const recorded = sdkClient(server().url, () => mintTicket(server().url, org.serverKey, xcUserID))
      await recorded.client.start()
      await untilOpen(recorded)
      return recorded
    }

    test('a message scheduled, edited and sent at its time; its read details; the room’s links; a report', async () => {
      const alice = await user('f-alice')
      const bob = await user('f-bob')
      const heard: ScheduledMessage[] = []
      alice.client.on('scheduled', (s) => heard.push(s))
      const room = await alice.client.rooms.create({
        name: 'Plans',
        userIDs: [bob.client.user?.userID as string],
      })
      bob.client.watch(room.roomID)
      const scheduled = await alice.client.scheduled.create(
        { roomID: room.roomID, body: 'see you' },
        server().clock.now() + 60_000,
      )
      await alice.client.scheduled.editText(scheduled.id, 'see you at 5')
      expect(await alice.client.scheduled.list(room.roomID)).toMatchObject([
        { message: { body: 'see you at 5' } },
      ])
      server().clock.advance(61_000)
      await server().app.scheduler.sendDue()
      await until(() => bob.bodies(room.roomID).includes('see you at 5'), 'the scheduled message')
      await until(() => heard.some((s) => s.status === 'sent'), 'the scheduled event')

      const link = await alice.client.messages.send({
        roomID: room.roomID,
        type: 1010,
        body: 'https://example.com',
        data: { url: 'https://example.com', title: 'Example' },
      })
      await until(() => bob.bodies(room.roomID).includes('https://example.com'), 'the link')
      await bob.client.messages.markRead([link.messageID])
      expect(await alice.client.roomContent.readDetails(link.messageID)).toMatchObject({
        readCount: 1,
        readBy: [{ xcUserID: 'f-bob' }],
      })
      expect(await alice.client.roomContent.readCount(link.messageID)).toBe(1)
      const shared = await bob.client.roomContent.sharedContent(room.roomID)
      expect(shared.links).toMatchObject([{ messageID: link.messageID, data: { title: 'Example' } }])
      expect(await bob.client.reports.message(link.messageID, room.roomID, { category: 'spam' })).toEqual(
        expect.any(String),
      )
      alice.client.stop()
      bob.client.stop()
    })
  },
)
