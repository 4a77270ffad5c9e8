import type { ChildProcess, SpawnOptions } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { spawnChild } from './children.js'
import { freePort } from './ports.js'

// A pgbouncer of a test's own (Debian's package, as operators run it), in front of the PostgreSQL
// of DATABASE_URL: every database name is passed through (`*`), logged in as DATABASE_URL's user
// without a password (the PostgreSQL of the tests trusts loopback).

export const PGBOUNCER = process.env.PGBOUNCER_PATH ?? '/usr/sbin/pgbouncer'
export const hasPgBouncer = existsSync(PGBOUNCER)

export interface PgBouncerOptions {
  /** transaction (default) or session. */
  poolMode?: 'transaction' | 'session'
  /** Server connections per database and user (default_pool_size). */
  poolSize?: number
  /** Client connections it accepts in all (max_client_conn). */
  maxClientConnections?: number
  /** Seconds a client may wait for a server connection before it is refused (query_wait_timeout). */
  queryWaitTimeout?: number
  /** Seconds a server connection may sit idle before pgbouncer closes it (server_idle_timeout). */
  serverIdleTimeout?: number
  /** Server connections used in turn rather than the last one freed first (server_round_robin). */
  roundRobin?: boolean
  /** How it is started (default spawnChild: killed when its test file ends). */
  spawn?: (command: string, args: string[], options: SpawnOptions) => ChildProcess
}

export interface PgBouncer {
  port: number
  /** `url` (a database of DATABASE_URL's server) reached through this pgbouncer. */
  through(url: string): string
  /** Runs admin console commands (SET, KILL, RESUME…) on a connection of its own, then closes it. */
  admin<T>(use: (run: (command: string) => Promise<unknown>) => Promise<T>): Promise<T>
  stop(): Promise<void>
}

export async function startPgBouncer(upstream: string, options: PgBouncerOptions = {}): Promise<PgBouncer> {
  const server = new URL(upstream)
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'parley-pgbouncer-'))
  // Readable by the user pgbouncer may switch to (below).
  chmodSync(dir, 0o755)
  const ini = join(dir, 'pgbouncer.ini')
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432} user=${server.username || 'postgres'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      // Its admin console (database `pgbouncer`), for tests that change its limits while it runs.
      `admin_users = ${server.username || 'postgres'}`,
      `pool_mode = ${options.poolMode ?? 'transaction'}`,
      `default_pool_size = ${options.poolSize ?? 20}`,
      `max_client_conn = ${options.maxClientConnections ?? 1000}`,
      `query_wait_timeout = ${options.queryWaitTimeout ?? 120}`,
      `server_round_robin = ${options.roundRobin ? 1 : 0}`,
      `server_idle_timeout = ${options.serverIdleTimeout ?? 600}`,
      // Nothing to reset: Parley keeps no session state, and in transaction mode none may be kept.
      'server_reset_query =',
      '',
    ].join('\n'),
    { mode: 0o644 },
  )
  // pgbouncer refuses to run as root; as root (CI's containers) it runs as PostgreSQL's user.
  const asUser = process.getuid?.() === 0 ? ['-u', 'postgres'] : []
  const start = options.spawn ?? spawnChild
  const child = start(PGBOUNCER, [...asUser, ini], { stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  await new Promise<void>((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk).slice(-20_000)
      if (log.includes('process up')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`pgbouncer exited with ${code}: ${log}`)))
  })
  return {
    port,
    through: (url) => {
      const parsed = new URL(url)
      parsed.hostname = '127.0.0.1'
      parsed.port = String(port)
      return parsed.toString()
    },
    admin: async (use) => {
      const adminClient = new pg.Client({
        connectionString: `postgres://${server.username || 'postgres'}@127.0.0.1:${port}/pgbouncer`,
      })
      adminClient.on('error', () => {})
      await adminClient.connect()
      try {
        return await use((command) => adminClient.query(command))
      } finally {
        await adminClient.end().catch(() => {})
      }
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGKILL')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
