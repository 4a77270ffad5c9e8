import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { send } from './app.js'
import { createOwnPostgresDatabase, pooledEnv } from './databases.js'
import { validTicketRequest } from './fixtures.js'
import {
  freePort,
  runCLIJSON,
  type ServerProcess,
  startRedis,
  startServerProcess,
  stopRedis,
  untilReady,
} from './processes.js'

// A Parley deployment of a test's own, for fault tests: a PostgreSQL database and a redis-server
// nobody else uses, and instances as child processes, so that the test may terminate, restart or
// kill any of them.

export interface Deployed {
  userID: string
  accessToken: string
}

export class Deployment {
  readonly instances: ServerProcess[] = []
  private redis: ChildProcess | undefined
  private serverKey = ''

  private constructor(
    readonly env: Record<string, string>,
    private readonly database: { url: string; name: string; drop(): Promise<void> },
    private readonly redisPort: number | undefined,
  ) {}

  /**
   * `reach` is how the instances reach the database (e.g. through a pgbouncer), `env` more
   * settings of theirs; with a REDIS_URL there, they use that Redis, and the deployment starts none.
   */
  static async start(
    instances: number,
    {
      reach = (url: string) => url,
      env: more = {},
    }: { reach?: (url: string) => string; env?: Record<string, string> } = {},
  ): Promise<Deployment> {
    const database = await createOwnPostgresDatabase()
    const redisPort = more.REDIS_URL ? undefined : await freePort()
    const env = {
      DATA_DIR: `/tmp/parley-fault-${randomBytes(4).toString('hex')}`,
      DATABASE_URL: reach(database.url),
      PARLEY_MASTER_KEY: randomBytes(32).toString('base64'),
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      ...pooledEnv,
      ...more,
    }
    const deployment = new Deployment(env, database, redisPort)
    if (redisPort !== undefined) await deployment.startRedis()
    // One instance first: it migrates the new database; the others find it done.
    deployment.instances.push(await startServerProcess(env))
    for (let i = 1; i < instances; i++) deployment.instances.push(await startServerProcess(env))
    await Promise.all(deployment.instances.map((instance) => untilReady(instance)))
    const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Faults'], env)
    deployment.serverKey = (
      await runCLIJSON(['server-key', 'create', '--org', organizationID], env)
    ).serverKey
    return deployment
  }

  get urls(): string[] {
    return this.instances.map((instance) => instance.url)
  }

  async startRedis(): Promise<void> {
    if (this.redisPort === undefined) throw new Error('this deployment uses a Redis of its caller')
    this.redis = await startRedis(this.redisPort)
  }

  async stopRedis(): Promise<void> {
    if (this.redis) await stopRedis(this.redis)
    this.redis = undefined
  }

  /** Ends every connection Parley has to its database, as a PostgreSQL restart or failover would. */
  async terminateDatabaseConnections(): Promise<number> {
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await admin.connect()
    const { rows } = await admin.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [this.database.name],
    )
    await admin.end()
    return rows.length
  }

  /** Rows of the database, read directly (what was really stored). */
  async query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: this.database.url })
    await client.connect()
    try {
      return (await client.query<T>(text, values)).rows
    } finally {
      await client.end()
    }
  }

  /** The customer backend's ticket request for `xcUserID`, to the instance at `url`. */
  requestTicket(url: string, xcUserID: string) {
    return send(`${url}/v1/server/auth_ticket/request`, {
      method: 'POST',
      headers: { 'server-key': this.serverKey, 'content-type': 'application/json' },
      body: JSON.stringify(validTicketRequest({ xcUserID })),
    })
  }

  async signIn(xcUserID: string, url = this.urls[0] as string): Promise<Deployed> {
    const ticket = await this.requestTicket(url, xcUserID)
    const tokens = await send(`${url}/v1/auth/access_token/request`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ticket.json.data.ticket}` },
    })
    const { accessToken, user } = tokens.json.data
    return { userID: user.userID, accessToken }
  }

  async stop(): Promise<void> {
    for (const instance of this.instances)
      if (instance.child.exitCode === null) instance.child.kill('SIGTERM')
    await Promise.all(this.instances.map((instance) => instance.exited))
    await this.stopRedis()
    await this.database.drop()
  }
}

/** What a client app that retries sends saw. */
export interface SendReport {
  /** Messages the client meant to send. */
  sent: number
  /** Their localIDs, for those the server acknowledged (200). */
  acknowledged: Set<string>
  /** Status of every failed attempt (0: no answer at all). */
  failures: number[]
  /** How many failed attempts (503) carried Retry-After. */
  withRetryAfter: number
}

/**
 * Sends `count` texts into a room as a client app would: each with its own localID, retried
 * (with that same localID) on the next instance after a failure, until acknowledged.
 */
export async function sendAll(
  urls: () => string[],
  sender: Deployed,
  roomID: string,
  options: { prefix: string; count: number; onAck?: (acknowledged: number) => void | Promise<void> },
): Promise<SendReport> {
  const report: SendReport = { sent: options.count, acknowledged: new Set(), failures: [], withRetryAfter: 0 }
  let instance = 0
  for (let i = 0; i < options.count; i++) {
    const localID = `${options.prefix}-${i}`
    for (let attempt = 0; ; attempt++) {
      const url = urls()[instance % urls().length] as string
      const reply = await send(`${url}/v1/chat/message/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sender.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ roomID, localID, type: 1001, body: `message ${localID}` }),
      }).catch(() => undefined)
      if (reply?.status === 200) break
      report.failures.push(reply?.status ?? 0)
      if (reply?.headers.get('retry-after')) report.withRetryAfter++
      if (attempt > 200) throw new Error(`${localID} was never acknowledged`)
      instance++
      await new Promise((resolve) => setTimeout(resolve, Math.min(10 * 2 ** attempt, 200)))
    }
    report.acknowledged.add(localID)
    await options.onAck?.(report.acknowledged.size)
  }
  return report
}
