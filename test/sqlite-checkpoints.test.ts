import { statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startServer, stopServer, type TestServer } from './support/app.js'
import { createOrganization, type TestClient } from './support/clients.js'

// SQLite's write-ahead log is copied into the database file by a thread of its own
// (storage/checkpointer.ts), not by the commits of the server's thread, which would only do it
// once the log holds 20,000 pages (80 MB).

describe('SQLite checkpoints', () => {
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
