import { statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { loadSqlite } from '../../src/storage/sqlite-driver.js'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { createOrganization, type TestClient } from '../support/clients.js'

const SQLite = loadSqlite()

// SQLite's one writer: when another process (the CLI, a backup) holds the write lock longer than
// the busy timeout (5 s), a write is answered 503 with Retry-After, changes nothing, and succeeds
// when tried again. (PostgreSQL's outages are in faults.test.ts.) And its write-ahead log: copied
// into the database file by a thread of its own (storage/checkpointer.ts), not by the server's
// commits, which would do it only once the log holds 20,000 pages (80 MB).

describe('SQLite: the one writer and its write-ahead log', () => {
  let server: TestServer
  let alice: TestClient
  let bob: TestClient

  beforeAll(async () => {
    server = await startServer('sqlite')
    const org = await createOrganization(server)
    ;[alice, bob] = await Promise.all([org.signIn('alice'), org.signIn('bob')])
  })
  afterAll(async () => {
    if (server) await stopServer(server)
  })

  test('a write waits out the busy timeout, then is 503 with Retry-After; retried later it is stored once', async () => {
    const message = { recipientUserID: bob.userID, localID: 'locked-out', type: 1001, body: 'hello' }
    const other = new SQLite(join(server.testDatabase.dataDir, 'parley.db'))
    other.exec('begin immediate')
    let reply: Awaited<ReturnType<TestClient['call']>>
    try {
      reply = await alice.call('/v1/chat/message/send', message)
    } finally {
      other.exec('rollback')
      other.close()
    }
    expect(reply.status).toBe(503)
    expect(reply.json.error).toEqual({
      code: '50300',
      message: 'Service temporarily unavailable; try again',
      field: '',
    })
    expect(reply.headers.get('retry-after')).toBe('1')
    const retried = await alice.call('/v1/chat/message/send', message)
    expect(retried.status).toBe(200)
    const rows = await server.testDatabase.database.db
      .selectFrom('messages')
      .select('id')
      .where('local_id', '=', 'locked-out')
      .execute()
    expect(rows.map((row) => row.id)).toEqual([retried.json.data.message.messageID])
  })

  test('what is committed reaches the database file while the server only writes', async () => {
    const file = join(server.testDatabase.dataDir, 'parley.db')
    const before = statSync(file).size
    // About 1 MB: far below the server's own checkpoint threshold (and SQLite's default, 4 MB).
    const body = 'x'.repeat(19_000)
    for (let i = 0; i < 50; i++) {
      const reply = await alice.call('/v1/chat/message/send', {
        recipientUserID: bob.userID,
        localID: `big-${i}`,
        type: 1001,
        body,
      })
      expect(reply.status).toBe(200)
    }
    // The thread checkpoints every quarter second; the file has grown once it has.
    await expect
      .poll(() => statSync(file).size - before, { timeout: 10_000, interval: 100 })
      .toBeGreaterThan(900_000)
  })
})
