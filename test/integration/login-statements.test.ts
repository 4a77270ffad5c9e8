import { expect, test } from 'vitest'
import { statementName } from '../../src/storage/prepared.js'
import { useServer } from '../support/app.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect } from '../support/sockets.js'
import { recordStatements } from '../support/statements.js'

// What a user's arrival asks of the database: its lookups are named statements, which PostgreSQL
// parses once per connection and plans on its first runs only (storage/prepared.ts). Sent unnamed,
// each was planned on every call, and planning took longer than running it.

describeEachDatabase('statements of a sign-in and a connect', (dialect) => {
  const server = useServer(dialect)

  test('a ticket requested and exchanged, a first message and a socket: every lookup is named', async () => {
    const org = await createOrganization(server())
    const bob = await org.signIn('bob')
    const recording = recordStatements()
    const alice = await org.signIn('alice')
    const sent = await alice.call('/v1/chat/message/send', {
      recipientUserID: bob.userID,
      localID: 'first',
      type: 1001,
      body: 'hi',
    })
    const socket = await connect(server().url, alice.accessToken)
    // The connect's presence announcement, sent to the user's own sockets too, comes last.
    await socket.waitFor('user/status')
    const statements = recording.stop()
    await socket.close()
    expect(sent.status).toBe(200)
    const lookups = statements.filter((text) => /^\s*(select|update|with)\b/i.test(text))
    expect(lookups.some((text) => text.includes('"tickets"'))).toBe(true)
    expect(lookups.some((text) => text.includes('"peer"'))).toBe(true)
    expect(lookups.filter((text) => statementName(text) === undefined)).toEqual([])
  })
})
