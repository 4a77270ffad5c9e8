import { expect, test } from 'vitest'
import { SYNC_OVERLAP_MS } from '../../src/domain/messages/message-sync.js'
import { useServer } from '../support/app.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'

// `new_and_updated` answers what changed since the session's sync point: messages sent since and
// messages deleted since (a message's one change), found by two indexes (migration 0024).

describeEachDatabase('new_and_updated', (dialect) => {
  const server = useServer(dialect)

  test('brings messages sent and deleted since the sync point, in the order they changed', async () => {
    const org = await createOrganization(server())
    const [ann, ben] = await Promise.all([org.signIn('ann'), org.signIn('ben')])
    const send = async (localID: string) =>
      (
        await ann.call('/v1/chat/message/send', {
          recipientUserID: ben.userID,
          localID,
          type: 1001,
          body: localID,
        })
      ).json.data.message
    // Sent in one millisecond (the test's clock stands still): `created` steps past the clock.
    const [first, second, third] = [await send('first'), await send('second'), await send('third')]
    expect(third.created).toBe(first.created + 2)
    // A sync point past them and the overlap it reads again: they changed at or before its start,
    // though the third's `created` is after it.
    server().clock.advance(SYNC_OVERLAP_MS + 1)
    await ben.call('/v1/chat/message/room_list_and_unread')
    const roomID = first.roomID
    await ann.call('/v1/chat/message/delete', { roomID, messageIDs: [second.messageID] })
    server().clock.advance(1)
    const fourth = await send('fourth')
    server().clock.advance(1)
    await ann.call('/v1/chat/message/delete', { roomID, messageIDs: [first.messageID] })

    const changed = (await ben.call('/v1/chat/message/new_and_updated')).json.data
    expect(changed.hasMore).toBe(false)
    expect(
      changed.messages.map((m: { localID: string; isDeleted: boolean }) => [m.localID, m.isDeleted]),
    ).toEqual([
      ['second', true],
      ['fourth', false],
      ['first', true],
    ])
    expect(changed.messages[1].messageID).toBe(fourth.messageID)
  })
})
