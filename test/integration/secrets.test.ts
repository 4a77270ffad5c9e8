import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { sql } from 'kysely'
import { beforeAll, expect, test } from 'vitest'
import { send, useServer } from '../support/app.js'
import { describeEachDatabase } from '../support/databases.js'
import { validTicketRequest } from '../support/fixtures.js'
import { runCLIJSON } from '../support/processes.js'
import { storedTexts, whereStored } from '../support/stored-text.js'

// Secrets, tickets and tokens are stored hashed and never logged.

describeEachDatabase('secrets at rest and in logs', (dialect) => {
  const server = useServer(dialect)
  const secrets: string[] = []

  beforeAll(async () => {
    const { env } = server().testDatabase
    const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Secretive'], env)
    const key = await runCLIJSON(['server-key', 'create', '--org', organizationID], env)
    secrets.push(key.serverKeySecret, key.serverKey)
    for (const xcUserID of ['alice', 'bob']) {
      const reply = await server().post('/v1/server/auth_ticket/request', validTicketRequest({ xcUserID }), {
        'server-key': key.serverKey,
      })
      expect(reply.status).toBe(200)
      secrets.push(reply.json.data.ticket)
    }
    // Credentials sent in the wrong places must not leak either.
    const wrongSecret = Buffer.from(`${key.serverKeyID}:${key.serverKeySecret}-wrong`).toString('base64')
    await server().post('/v1/server/auth_ticket/request', validTicketRequest(), { 'server-key': wrongSecret })
    await send(`${server().url}/connect?authorization=Bearer%20${secrets[2]}&check=1`, {
      method: 'GET',
      headers: { authorization: `Bearer ${secrets[2]}` },
    })
  })

  test('the database holds no server key secret and no ticket in plain text', async () => {
    const { database } = server().testDatabase
    // Every text and JSON column of every table, from the schema.
    const stored = await storedTexts(server().testDatabase)
    expect(stored.map((text) => text.table)).toEqual(
      expect.arrayContaining(['organizations', 'server_keys', 'users', 'tickets']),
    )
    expect(whereStored(stored, secrets)).toEqual([])

    if (dialect === 'sqlite') {
      // Also the raw bytes of the database file and its write-ahead log.
      await sql`pragma wal_checkpoint(PASSIVE)`.execute(database.db)
      const dir = server().testDatabase.dataDir
      const files = readdirSync(dir).filter((name) => name.startsWith('parley.db'))
      expect(files).toContain('parley.db')
      const raw = files.map((name) => readFileSync(join(dir, name)).toString('latin1')).join('')
      for (const secret of secrets) expect(raw).not.toContain(secret)
    }
  })

  test('the logs hold none of them', () => {
    const logs = server().logs.join('')
    expect(logs).toContain('/v1/server/auth_ticket/request') // requests were logged
    expect(logs).toContain('/connect?authorization=%5Bredacted%5D&check=1')
    for (const secret of secrets) {
      expect(logs).not.toContain(secret)
      expect(logs).not.toContain(encodeURIComponent(secret))
    }
  })
})
