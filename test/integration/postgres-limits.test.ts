import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { send } from '../support/app.js'
import { asAdmin, pooled, pooledEnv, postgresURL, runPrefix } from '../support/databases.js'
import { validTicketRequest } from '../support/fixtures.js'
import { runCLIJSON, startServerProcess, untilReady } from '../support/processes.js'

// A PostgreSQL that refuses connections (max_connections, here a role's CONNECTION LIMIT below the
// instance's pool: 53300) is an outage for the requests that meet it: 503 with Retry-After, never
// 500 (docs/operations/postgresql-and-redis.md, the connection budget). Through the run's pgbouncer
// the role's limit would be the pooler's to meet, so this runs on PostgreSQL directly.

const enabled = Boolean(postgresURL) && !pooled

test.skipIf(!enabled)(
  "a role's connection limit below the pool: the burst's refusals are 503 with Retry-After",
  async () => {
    const name = `${runPrefix()}limited_${randomBytes(4).toString('hex')}`
    await asAdmin(`create role ${name} login connection limit 3`)
    await asAdmin(`create database ${name} owner ${name}`)
    const url = new URL(postgresURL as string)
    url.username = name
    url.pathname = `/${name}`
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-limited-'))
    const env = {
      DATA_DIR: dataDir,
      DATABASE_URL: url.toString(),
      PARLEY_MASTER_KEY: randomBytes(32).toString('base64'),
      ...pooledEnv,
    }
    try {
      // The CLI first (it migrates): the server's connections would leave it none.
      const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Limited'], env)
      const { serverKey } = await runCLIJSON(['server-key', 'create', '--org', organizationID], env)
      const instance = await startServerProcess(env)
      try {
        await untilReady(instance)
        const ticket = (xcUserID: string) =>
          send(`${instance.url}/v1/server/auth_ticket/request`, {
            method: 'POST',
            headers: { 'server-key': serverKey, 'content-type': 'application/json' },
            body: JSON.stringify(validTicketRequest({ xcUserID })),
          })
        // A first one, so that the key is known and each request below goes to the database itself.
        expect((await ticket('first')).status).toBe(200)
        const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => ticket(`burst-${i}`)))
        const refused = replies.filter((reply) => reply.status === 503)
        expect(replies.filter((reply) => reply.status !== 200 && reply.status !== 503)).toEqual([])
        expect(refused.length).toBeGreaterThan(0)
        for (const reply of refused) expect(reply.headers.get('retry-after')).toBe('1')
        expect(instance.lines.join('\n')).toContain(`too many connections for role`)
        expect(instance.child.exitCode).toBe(null)
      } finally {
        instance.child.kill('SIGTERM')
        await instance.exited
      }
    } finally {
      await asAdmin(`drop database if exists ${name} with (force)`)
      await asAdmin(`drop role if exists ${name}`)
      rmSync(dataDir, { recursive: true, force: true })
    }
  },
  60_000,
) // a CLI run and a server process
