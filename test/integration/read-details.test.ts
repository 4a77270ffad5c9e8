import { beforeAll, describe, expect, test } from 'vitest'
import { useServer } from '../support/app.js'
import { createOrganization, type TestClient } from '../support/clients.js'
import { dialects } from '../support/databases.js'

// Read details of a message in a group: who has read it, who has it delivered, and the counts,
// from the participants' read and delivered marks.

const names = (users: { fullname: string }[]) => users.map((u) => u.fullname).sort()

for (const dialect of dialects) {
  describe(`read details [${dialect}]`, () => {
    const server = useServer(dialect)
    let ann: TestClient
    let bob: TestClient
    let cat: TestClient
    let dan: TestClient
    let roomID: string
    let messageID: string

    beforeAll(async () => {
      const org = await createOrganization(server())
      ;[ann, bob, cat, dan] = (await Promise.all(['ann', 'bob', 'cat', 'dan'].map((x) => org.signIn(x)))) as [
        TestClient,
        TestClient,
        TestClient,
        TestClient,
      ]
      const room = await ann.call('/v1/client/room/create', {
        name: 'Team',
        type: 2,
        userIDs: [bob.userID, cat.userID, dan.userID],
      })
      roomID = room.json.data.room.roomID
      const sent = await ann.call('/v1/chat/message/send', {
        roomID,
        localID: 'q',
        type: 1001,
        body: 'Lunch?',
      })
      messageID = sent.json.data.message.messageID
    })

    test('nobody yet; then delivered to two, read by one (at once, from their devices)', async () => {
      const none = await ann.call('/v1/chat/message/get_details', { messageID })
      expect(none.json.data).toMatchObject({ readBy: [], deliveredTo: [], readCount: 0, deliveredCount: 0 })
      await Promise.all([
        bob.call('/v1/chat/message/feedback/read', { messageIDs: [messageID] }),
        cat.call('/v1/chat/message/feedback/delivered', { messageIDs: [messageID] }),
      ])
      const details = (await ann.call('/v1/chat/message/get_details', { messageID })).json.data
      expect(details.message).toMatchObject({ messageID, body: 'Lunch?' })
      expect(names(details.readBy)).toEqual(['User bob'])
      expect(names(details.deliveredTo)).toEqual(['User cat'])
      expect(details).toMatchObject({ readCount: 1, deliveredCount: 2 })
      const total = await ann.call('/v1/chat/message/get_total_read', { messageID })
      expect(total.json.data).toEqual({ count: 1 })
    })

    test("another's message, an unknown one, or one of a room one is not in: the documented errors", async () => {
      expect((await bob.call('/v1/chat/message/get_details', { messageID })).json.error.code).toBe('40301')
      expect((await ann.call('/v1/chat/message/get_details', { messageID: '1' })).json.error.code).toBe(
        '40401',
      )
      expect((await ann.call('/v1/chat/message/get_details', {})).json.error).toMatchObject({
        code: '40002',
        field: 'messageID',
      })
      await dan.call('/v1/client/room/leave', { roomID })
      const outsider = await dan.call('/v1/chat/message/get_total_read', { messageID })
      expect(outsider.json.error.code).toBe('40401')
    })
  })
}
