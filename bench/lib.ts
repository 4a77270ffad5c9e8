import { type ChildProcess, execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import autocannon from 'autocannon'
import pg from 'pg'
import { spawnTied } from './tied.js'

export const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const LOCAL_BOTS = '127.0.0.1'
export const CONNECTIONS = 50

export interface Figures {
  name: string
  requestsPerSecond: number
  p50: number
  p99: number
  errors: number
  non2xx: number
}

export interface Service {
  url: string
  child: ChildProcess
  env: Record<string, string>
  stop(): Promise<void>
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** Starts a server process on a free port and resolves once `healthPath` answers. */
export async function startService(
  args: string[],
  env: Record<string, string>,
  healthPath = '/healthz',
  /** Each line the server logs (its stdout), if wanted. */
  onLogLine?: (line: string) => void,
): Promise<Service> {
  const port = await freePort()
  // e.g. BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the servers under load
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)
  const child = spawnTied(process.execPath, [...nodeArgs, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      // The benchmarks' chatbots run on this machine.
      CHATBOT_URL_ALLOW: LOCAL_BOTS,
      ...env,
    },
    stdio: ['ignore', onLogLine ? 'pipe' : 'ignore', 'inherit'],
  })
  if (onLogLine && child.stdout) createInterface({ input: child.stdout }).on('line', onLogLine)
  let exited = false
  child.on('exit', () => {
    exited = true
  })
  const url = `http://127.0.0.1:${port}`
  for (let attempt = 0; ; attempt++) {
    if (exited || attempt > 600) {
      child.kill()
      throw new Error(`${args.join(' ')} did not start`)
    }
    const up = await fetch(`${url}${healthPath}`).then(
      (response) => response.status < 500,
      () => false,
    )
    if (up) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return {
    url,
    child,
    env,
    stop: () =>
      new Promise((done) => {
        if (exited) return done()
        child.on('exit', () => done())
        child.kill('SIGTERM')
      }),
  }
}

/** A fresh Parley data directory (SQLite) or a fresh PostgreSQL database (named `name`). */
export async function freshStorage(
  postgresURL?: string,
  name = `parley_bench_${process.pid}`,
): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const DATA_DIR = mkdtempSync(join(tmpdir(), 'parley-bench-'))
  const removeDir = () => rmSync(DATA_DIR, { recursive: true, force: true })
  if (!postgresURL) return { env: { DATA_DIR }, drop: async () => removeDir() }
  const admin = new pg.Client({ connectionString: postgresURL })
  await admin.connect()
  await admin.query(`drop database if exists ${name}`)
  await admin.query(`create database ${name}`)
  const url = new URL(postgresURL)
  url.pathname = `/${name}`
  return {
    env: {
      DATA_DIR,
      DATABASE_URL: url.toString(),
      PARLEY_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
    },
    drop: async () => {
      await admin.query(`drop database if exists ${name} with (force)`)
      await admin.end()
      removeDir()
    },
  }
}

/** A new organization and its server key, made with the CLI (of the build in `root`). */
export function newOrganization(
  env: Record<string, string>,
  root = '.',
): { organizationID: string; serverKey: string } {
  const { organizationID } = cli(['org', 'create', '--name', 'Bench'], env, root)
  const { serverKey } = cli(['server-key', 'create', '--org', organizationID as string], env, root)
  return { organizationID: organizationID as string, serverKey: serverKey as string }
}

export function cli(args: string[], env: Record<string, string>, root = '.'): Record<string, string> {
  const out = execFileSync(process.execPath, ['dist/cli/main.js', ...args, '--json'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', CHATBOT_URL_ALLOW: LOCAL_BOTS, ...env },
  })
  return JSON.parse(out.toString())
}

/** Runs autocannon for DURATION seconds after a short warm-up. */
export async function load(
  name: string,
  options: autocannon.Options & { warmupSeconds?: number },
): Promise<Figures> {
  const { warmupSeconds = 2, connections = CONNECTIONS, ...rest } = options
  await autocannon({ ...rest, connections, duration: warmupSeconds })
  const result = await autocannon({ ...rest, connections, duration: DURATION })
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  }
}

export function printTable(rows: Figures[], baseline: Figures): void {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'vs bare', 'errors', 'non-2xx']
  const lines = rows.map((row) => [
    row.name,
    row.requestsPerSecond.toFixed(0),
    row.p50.toFixed(1),
    row.p99.toFixed(1),
    `${((row.requestsPerSecond / baseline.requestsPerSecond) * 100).toFixed(1)}%`,
    String(row.errors),
    String(row.non2xx),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)))
  const format = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ')
  console.log(format(header))
  for (const line of lines) console.log(format(line))
}

export type Post = (
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) => Promise<Record<string, never>>

/** A JSON POST to the service, answering the envelope's `data`. */
export function poster(baseURL: string): Post {
  return async (path, headers, body) => {
    const response = await fetch(`${baseURL}${path}`, {
      method: 'POST',
      headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : null,
    })
    return ((await response.json()) as { data: Record<string, never> }).data
  }
}

/** Signs a benchmark user in (ticket, then tokens): its userID and the Authorization header. */
export async function signIn(post: Post, serverKey: string, name: string) {
  const { ticket } = await post(
    '/v1/server/auth_ticket/request',
    { 'server-key': serverKey },
    {
      userIPAddress: '127.0.0.1',
      userAgent: 'bench',
      userPlatform: 'web',
      userDeviceID: `device-${name}`,
      xcUserID: name,
      fullName: name,
    },
  )
  const { accessToken, user } = await post('/v1/auth/access_token/request', {
    authorization: `Bearer ${ticket}`,
  })
  return {
    userID: (user as unknown as { userID: string }).userID,
    auth: { authorization: `Bearer ${accessToken}` },
  }
}
