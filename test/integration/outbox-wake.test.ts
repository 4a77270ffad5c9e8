import { afterAll, beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import { openCase } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { until } from '../support/sdk.js'

// The delivery worker is told of new deliveries as the transaction writing them commits (the outbox
// bell), instead of finding them at its next poll.
describeEachDatabase('the delivery worker, woken as deliveries commit', (dialect) => {
  // A poll every ten minutes: within a test, only the bell brings a delivery out.
  const server = useServer(dialect, {}, { delivery: { autoStart: true, pollMs: 600_000 } })
  let backend: Awaited<ReturnType<typeof startBot>>
  beforeAll(async () => {
    backend = await startBot()
  })
  afterAll(async () => {
    await backend.close()
  })
  const received = (path: string) => backend.requests.filter((r) => r.url === path)

  test("a visitor's messages reach the chatbot, and their events the endpoint, without a poll", async () => {
    const org = await createOrganization(server(), 'Bell')
    await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Bot',
      url: `${backend.origin}/bot`,
    })
    const admin = await signInAgent(server(), org.organizationID, 'admin@example.com', { role: 'admin' })
    const endpoint = await admin.call('/admin/event_endpoint/create', {
      url: `${backend.origin}/events`,
      eventTypes: ['message.new'],
      description: 'backend',
    })
    expect(endpoint.status).toBe(200)
    const visitor = await org.signIn('visitor')

    const opened = await openCase(visitor, 'first')
    await until(() => received('/bot').length === 1 && received('/events').length === 1, 'the first')
    // Again, with the worker idle since: each commit rings.
    const second = await visitor.call('/api/visitor/v1/client/case/send_message', {
      id: opened.caseID,
      localID: 'second',
      messageType: 'text',
      text: { body: 'second' },
    })
    expect(second.status).toBe(200)
    await until(() => received('/bot').length === 2 && received('/events').length === 2, 'the second')
    expect(received('/bot').map((r) => r.body.includes('"second"'))).toEqual([false, true])
  })
})
