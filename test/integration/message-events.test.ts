import { afterAll, beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'

// A message is stored without a transaction of its own when no endpoint of its organization takes
// `message.new` (issue 21): what each instance knows of the endpoints must never lose an event
// for a change made on it.
describeEachDatabase('message.new and the endpoints a sender knows of', (dialect) => {
  const server = useServer(dialect)
  let backend: Awaited<ReturnType<typeof startBot>>

  beforeAll(async () => {
    backend = await startBot(() => 200)
  })
  afterAll(async () => {
    await backend.close()
  })

  const sent = (messageIDs: string[]) =>
    backend.requests
      .map((request) => request.json as { type: string; data: { message?: { messageID: string } } })
      .filter((body) => body.type === 'message.new')
      .map((body) => body.data.message?.messageID)
      .filter((id) => messageIDs.includes(id as string))

  test('an endpoint created, or subscribed to message.new, just after a message hears the next one', async () => {
    const org = await createOrganization(server(), 'Message events')
    const admin = await signInAgent(server(), org.organizationID, 'admin@example.com', { role: 'admin' })
    const alice = await org.signIn('alice')
    const bob = await org.signIn('bob')
    const send = async (localID: string) => {
      const reply = await alice.call('/v1/chat/message/send', {
        recipientUserID: bob.userID,
        localID,
        type: 1001,
        body: localID,
      })
      return reply.json.data.message.messageID as string
    }
    const before = await send('before any endpoint') // this instance now knows of none
    const created = await admin.call('/admin/event_endpoint/create', {
      url: `${backend.origin}/events`,
      eventTypes: ['case.closed'],
    })
    const { endpointID } = created.json.data
    const notSubscribed = await send('not subscribed yet')
    await admin.call('/admin/event_endpoint/update', { endpointID, eventTypes: ['message.new'] })
    const subscribed = await send('subscribed')
    await server().app.delivery.drain()
    expect(sent([before, notSubscribed, subscribed])).toEqual([subscribed])
  })
})
