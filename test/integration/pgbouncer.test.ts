import { tmpdir } from 'node:os'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { POSTGRES_DEFAULTS } from '../../src/config/postgres.js'
import { migrate, openDatabase } from '../../src/storage/database.js'
import type { Reply } from '../support/app.js'
import { createOwnPostgresDatabase } from '../support/databases.js'
import { Deployment } from '../support/deployment.js'
import { caseThroughWebhook, chatBetweenInstances } from '../support/functional-checks.js'
import { hasPgBouncer, type PgBouncer, startPgBouncer } from '../support/pgbouncer.js'
import { startServerProcess, untilReady } from '../support/processes.js'

// Parley behind pgbouncer in transaction mode, as operators pool PostgreSQL connections (Debian's
// pgbouncer 1.18: no protocol-level prepared statements): with PG_NAMED_STATEMENTS=false the
// functional checks pass through it; and what a pooler refuses is an outage, 503 with Retry-After,
// never a 500 (docs/operations/postgresql-and-redis.md).

const enabled = Boolean(process.env.DATABASE_URL) && hasPgBouncer
if (!enabled) console.log('pgbouncer tests skipped: they need DATABASE_URL and /usr/sbin/pgbouncer.')

const upstream = process.env.DATABASE_URL as string

describe.skipIf(!enabled)('two instances behind pgbouncer in transaction mode', () => {
  let bouncer: PgBouncer
  let deployment: Deployment
  beforeAll(async () => {
    // Fewer server connections than the two instances' pools: every transaction may land on
    // another one.
    bouncer = await startPgBouncer(upstream, { poolSize: 4 })
    deployment = await Deployment.start(2, { reach: bouncer.through, env: { PG_NAMED_STATEMENTS: 'false' } })
  }, 60_000)
  afterAll(async () => {
    await deployment?.stop()
    await bouncer?.stop()
  })

  test('tickets, a chat between the instances, its history, and presence', async () => {
    await chatBetweenInstances(deployment)
  }, 60_000)

  test('a case through the chatbot webhook, handed over to an agent signed in on the other instance', async () => {
    await caseThroughWebhook(deployment)
  }, 60_000)

  /** Another instance of the deployment, with `env` of its own. */
  const extraInstance = async (env: Record<string, string>) => {
    const instance = await startServerProcess({ ...deployment.env, ...env })
    deployment.instances.push(instance)
    await untilReady(instance)
    return instance
  }

  /** Every answer is 200 or 503 with Retry-After; how many were 503. */
  const outages = (replies: Reply[]) => {
    for (const reply of replies) {
      expect([200, 503], reply.text).toContain(reply.status)
      if (reply.status === 503) expect(reply.headers.get('retry-after')).toBe('1')
    }
    return replies.filter((reply) => reply.status === 503).length
  }

  test('named statements through pgbouncer in transaction mode fail as outages: 503, never 500', async () => {
    const named = await extraInstance({ PG_NAMED_STATEMENTS: 'true' })
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => deployment.requestTicket(named.url, `named-${i}`)),
    )
    // The pooler did hand statements to connections that did not know them.
    expect(outages(replies)).toBeGreaterThan(0)
    expect(named.lines.join('\n')).toMatch(
      /prepared statement \\"parley_[0-9a-f]+\\" (does not exist|already exists)/,
    )
    expect(named.child.exitCode).toBe(null)
  }, 60_000)

  /**
   * An instance of its own behind a pgbouncer of one server connection that waits a second for it,
   * with a first ticket answered (the server key is cached: each request below goes to the
   * database by itself); `starve` makes its requests fail, then it recovers by itself.
   */
  const starvedInstance = async (
    starve: (tiny: PgBouncer, url: string, instanceURL: string) => Promise<void>,
  ) => {
    const tiny = await startPgBouncer(upstream, { poolSize: 1, queryWaitTimeout: 1 })
    try {
      const url = tiny.through(deployment.env.DATABASE_URL as string)
      const instance = await extraInstance({ DATABASE_URL: url })
      expect((await deployment.requestTicket(instance.url, 'first')).status).toBe(200)
      await starve(tiny, url, instance.url)
      let after: Reply | undefined
      for (let attempt = 0; attempt < 20 && after?.status !== 200; attempt++)
        after = await deployment.requestTicket(instance.url, `fed-${attempt}`)
      expect(after?.status).toBe(200)
      expect(instance.child.exitCode).toBe(null)
      return instance.lines.join('\n')
    } finally {
      await tiny.stop()
    }
  }

  const starvedTickets = async (url: string) => {
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) => deployment.requestTicket(url, `starved-${i}`)),
    )
    expect(outages(replies)).toBe(8)
  }

  test('a pool pgbouncer cannot serve in time: 503 with Retry-After', async () => {
    const said = await starvedInstance(async (_tiny, url, instanceURL) => {
      // Someone holds the one server connection: a transaction left open.
      const holder = new pg.Client({ connectionString: url })
      holder.on('error', () => {})
      await holder.connect()
      try {
        await holder.query('begin')
        await holder.query('select 1')
        await starvedTickets(instanceURL)
      } finally {
        await holder.end().catch(() => {})
      }
    })
    expect(said).toContain('query_wait_timeout')
  }, 60_000)

  test('connections pgbouncer refuses: 503 with Retry-After', async () => {
    const said = await starvedInstance(async (tiny, url, instanceURL) => {
      const database = new URL(url).pathname.slice(1)
      await tiny.admin(async (run) => {
        // The admin console is the one client it takes; the instance's connections are dropped,
        // so each request below asks for a new one.
        await run('SET max_client_conn = 1')
        await run(`KILL "${database}"`)
        await run(`RESUME "${database}"`)
        await starvedTickets(instanceURL)
        await run('SET max_client_conn = 100')
      })
    })
    expect(said).toContain('no more connections allowed')
  }, 60_000)
})

describe.skipIf(!enabled)('migrations behind pgbouncer in transaction mode', () => {
  test('the migration lock is held by the migrations’ transaction: none stays on a pooled server connection', async () => {
    const own = await createOwnPostgresDatabase()
    // Three server connections, lent in turn: statements outside a transaction land on another
    // one each time.
    const bouncer = await startPgBouncer(upstream, { poolSize: 3, roundRobin: true })
    try {
      const url = bouncer.through(own.url)
      const warm = Array.from({ length: 3 }, () => new pg.Client({ connectionString: url }))
      await Promise.all(warm.map((client) => client.connect()))
      await Promise.all(warm.map((client) => client.query('begin').then(() => client.query('select 1'))))
      await Promise.all(warm.map((client) => client.query('commit').then(() => client.end())))
      const database = openDatabase({
        dataDir: tmpdir(),
        databaseURL: url,
        postgres: { ...POSTGRES_DEFAULTS, namedStatements: false },
      })
      await migrate(database)
      await database.close()
      const direct = new pg.Client({ connectionString: own.url })
      await direct.connect()
      const { rows } = await direct.query(
        `select count(*)::int as held from pg_locks l join pg_stat_activity a on a.pid = l.pid
         where l.locktype = 'advisory' and a.datname = $1`,
        [own.name],
      )
      await direct.end()
      expect(rows[0].held).toBe(0)
    } finally {
      await bouncer.stop()
      await own.drop()
    }
  }, 60_000)
})
