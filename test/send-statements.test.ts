import { type CompiledQuery, DefaultQueryExecutor } from 'kysely'
import { expect, test } from 'vitest'
import { useServer } from './support/app.js'
import { createOrganization } from './support/clients.js'
import { describeEachDatabase } from './support/databases.js'

// What a message costs the database (issue 21). On PostgreSQL a message to a room that is open
// already is one statement, one round trip: stored and its room read together (store-in-room.ts).
// A chat room's message goes to no search index: only cases' messages are searched (case search).

/** The SQL of every query Kysely runs in this process from now until the returned stop(). */
function recordStatements() {
  const base = Object.getPrototypeOf(DefaultQueryExecutor.prototype)
  const original = base.executeQuery
  const statements: string[] = []
  base.executeQuery = function (this: unknown, query: CompiledQuery, ...rest: unknown[]) {
    statements.push(query.sql)
    return original.call(this, query, ...rest)
  }
  return {
    stop: () => {
      base.executeQuery = original
      return statements
    },
  }
}

describeEachDatabase('statements per message', (dialect) => {
  const server = useServer(dialect)

  test('a message to an open room is one statement on PostgreSQL, three in one commit on SQLite', async () => {
    const org = await createOrganization(server())
    const alice = await org.signIn('alice')
    const bob = await org.signIn('bob')
    const send = (localID: string) =>
      alice.call('/v1/chat/message/send', { recipientUserID: bob.userID, localID, type: 1001, body: 'hi' })
    expect((await send('opens-the-room')).status).toBe(200)

    const recording = recordStatements()
    const sent = await send('second')
    const statements = recording.stop()
    expect(sent.status).toBe(200)
    if (dialect === 'postgres') {
      expect(statements).toHaveLength(1)
      expect(statements[0]).toMatch(/^with "bump" as \(\s*update "rooms"/)
    } else {
      // The room read, then the room's bump and the message in one transaction.
      expect(statements.map((text) => text.split(/\s/)[0])).toEqual(['select', 'update', 'insert'])
    }
    expect(statements.join('\n')).not.toContain('message_search')
  })
})
