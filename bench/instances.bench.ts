import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { loadavg } from 'node:os'
import { Redis } from 'ioredis'
import {
  DURATION,
  freePort,
  freshStorage,
  newOrganization,
  poster,
  type Service,
  signIn,
  startService,
} from './lib.js'
import { dial, type Link, pool } from './realtime/links.js'
import { cpuTicks } from './realtime/load.js'
import { spawnTied } from './tied.js'

// `npm run bench -- --instances 1,2,4,8` (BENCH_ONLY=instances): how Parley's CPU per delivered
// message grows with the number of instances on one PostgreSQL and one Redis, at a fixed load:
// USERS users over /connect, half of them writing to the other half at RATE msg/s over all
// instances. Each size runs twice: "across", every writer's partner on another instance, and
// "local", every writer's partner on its own instance (what others publish is then of no use to
// an instance, and should cost it nothing), at the largest size only. Each measurement is made
// for Parley and for bare relays on the same Redis (the baseline). After each size N > 1, one
// instance is offered RATE/N msg/s, what each of the N gets: the same messages per process, so
// what differs from the N instances is only their number. BENCH_PARLEY names the servers to run,
// comma-separated (e.g. `dist/main.js,/tmp/main/dist/main.js` for a before and after: each size is
// measured with each in turn).

const USERS = Number(process.env.BENCH_INSTANCE_USERS ?? 400)
const RATE = Number(process.env.BENCH_INSTANCE_RATE ?? 400)
/** The builds to compare, each size measured with each in turn (same conditions). */
const BUILDS = (process.env.BENCH_PARLEY ?? 'dist/main.js').split(',')
/**
 * The baseline: bare `ws` relays on the same Redis (bare-ws-relay.ts), at each size, placement
 * and rate as Parley. Their growth from 1 to N is what N processes cost on this machine whatever
 * they do; Parley's growth is set next to it.
 */
const BARE = 'bare relay (baseline)'
const SERVERS = [...BUILDS, BARE]
const IDLE_SECONDS = 4
/**
 * Messages each instance handles before it is measured: V8 compiles a function's optimized code
 * after so many calls, not after so much time, so a warm-up of fixed seconds would leave eight
 * instances (an eighth of the traffic each) measured while still compiling.
 */
const WARM_MESSAGES = 1200
/** How long a measurement waits for its last messages to arrive (the CPU counts until then). */
const DRAIN_MS = 30_000

export interface InstanceFigures {
  server: string
  instances: number
  placement: 'across' | 'local'
  /** Messages offered per second over all the instances. */
  rate: number
  sent: number
  delivered: number
  /** CPU seconds of every instance together per delivered message, in µs. */
  cpuPerMessage: number
  /** What Redis sent its clients per delivered message: the publishes each instance reads. */
  redisBytesPerMessage: number
  /** CPU of one idle instance (1 = a core). */
  idlePerInstance: number
  redisCPU: number
  p50: number
  p99: number
  load: number
}

export const instanceCounts = (argv: string[]) => {
  const at = argv.indexOf('--instances')
  const list = at >= 0 ? argv[at + 1] : process.env.BENCH_INSTANCES
  return (list ?? '1,2,4,8').split(',').map(Number)
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function startRedis(port: number): Promise<ChildProcess> {
  const redis = spawnTied(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  await new Promise<void>((resolve, reject) => {
    redis.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('Ready to accept') && resolve())
    redis.once('exit', () => reject(new Error('redis-server did not start')))
  })
  return redis
}

/** Each size in `counts`, across and local, on one database and one Redis of the run's own. */
export async function benchInstances(postgresURL: string, counts: number[]): Promise<InstanceFigures[]> {
  const storage = await freshStorage(postgresURL)
  const redisPort = await freePort()
  const redis = await startRedis(redisPort)
  // Eight instances stay within PostgreSQL's default 100 connections.
  const env = {
    ...storage.env,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    CONNECTIONS_PER_ADDRESS: '0',
    PG_POOL_MAX: '6',
    PG_WORKER_POOL_MAX: '2',
  }
  const stats = new Redis(redisPort, '127.0.0.1')
  /** Redis' process, and the bytes it has sent its clients (the instances' subscriptions, mostly). */
  const redisOf = {
    pid: redis.pid as number,
    bytesOut: async () => Number(/total_net_output_bytes:(\d+)/.exec(await stats.info('stats'))?.[1] ?? 0),
  }
  try {
    const first = await startService([BUILDS[0] as string], env, '/readyz')
    const { serverKey } = newOrganization(env)
    const post = poster(first.url)
    const users = await pool(
      Array.from({ length: USERS }, (_, i) => i),
      50,
      (i) => signIn(post, serverKey, `scale-${i}`),
    )
    await first.stop()
    const rows: InstanceFigures[] = []
    const largest = Math.max(...counts)
    const run = (server: string, count: number, placement: 'across' | 'local', rate = RATE) =>
      measure({ server, count, placement, rate }, env, users, redisOf)
    for (const count of counts) {
      for (const placement of count === largest && count > 1
        ? (['across', 'local'] as const)
        : (['across'] as const))
        for (const server of SERVERS) rows.push(await run(server, count, placement))
      // One instance at the rate each of `count` gets.
      if (count > 1) for (const server of SERVERS) rows.push(await run(server, 1, 'across', RATE / count))
    }
    return rows
  } finally {
    stats.disconnect()
    redis.kill('SIGKILL')
    await once(redis, 'exit')
    await storage.drop()
  }
}

type User = Awaited<ReturnType<typeof signIn>>

interface Setting {
  server: string
  count: number
  placement: 'across' | 'local'
  /** Messages offered per second over all `count` instances. */
  rate: number
}

/** How to start one instance of `server` (a Parley build, or BARE) and open a user's socket on it. */
function fleetOf(server: string, env: Record<string, string>) {
  if (server !== BARE)
    return {
      start: () => startService([server], env, '/readyz'),
      dial: (at: string, user: User) => dial({ kind: 'parley', url: `${at}/connect`, headers: user.auth }),
    }
  const redisURL = env.REDIS_URL
  if (!redisURL) throw new Error("the bare relays need the run's REDIS_URL")
  return {
    start: () =>
      startService(
        ['--import', 'tsx', 'bench/realtime/bare-ws-relay.ts'],
        { REDIS_URL: redisURL },
        '/readyz',
      ),
    dial: (at: string, user: User) => dial({ kind: 'ws relay', url: `${at}/?id=${user.userID}` }),
  }
}

async function measure(
  { server, count, placement, rate }: Setting,
  env: Record<string, string>,
  users: User[],
  redis: { pid: number; bytesOut(): Promise<number> },
): Promise<InstanceFigures> {
  const fleet = fleetOf(server, env)
  const services = await Promise.all(Array.from({ length: count }, fleet.start))
  const pairs = USERS / 2
  // Writer i on instance i % count; its reader there too (local), or on the next one (across).
  const home = (i: number) => (i < pairs ? i % count : (i - pairs + (placement === 'across' ? 1 : 0)) % count)
  const links: Link[] = await pool(users, 50, (user) =>
    fleet.dial((services[home(users.indexOf(user))] as Service).url.replace('http', 'ws'), user),
  )
  const latencies: number[] = []
  for (const link of links.slice(pairs))
    link.onMessage((body) => {
      latencies.push(performance.now() - Number(body))
    })
  let sequence = 0
  let label = 'warm'
  // Each measurement's localIDs are its own (the users and their rooms are the run's).
  const run = `${Date.now().toString(36)}-${count}-${placement}`
  const sendDue = (due: number) => {
    for (let n = 0; n < due; n++, sequence++) {
      const from = sequence % pairs
      const to = (users[pairs + from] as User).userID
      links[from]?.send(to, `${run}-${label}-${sequence}`, String(performance.now()))
    }
  }
  /** Offers `rate` msg/s for `seconds`, then waits until what was sent arrived (up to DRAIN_MS). */
  const offer = async (seconds: number) => {
    sequence = 0
    latencies.length = 0
    const started = performance.now()
    const due = () => Math.floor(((performance.now() - started) * rate) / 1000) - sequence
    const ticker = setInterval(() => sendDue(due()), 5)
    await pause(seconds * 1000)
    clearInterval(ticker)
    const drained = performance.now() + DRAIN_MS
    while (latencies.length < sequence && performance.now() < drained) await pause(50)
    return (performance.now() - started) / 1000
  }
  // A warm-up at the full rate (each instance compiles its hot paths), then CPU while idle.
  await offer((WARM_MESSAGES * count) / rate)
  const pids = services.map((service) => service.child.pid as number)
  const ticks = () => pids.reduce((sum, pid) => sum + cpuTicks(pid), 0)
  const idleStart = ticks()
  await pause(IDLE_SECONDS * 1000)
  const idlePerSecond = (ticks() - idleStart) / 100 / IDLE_SECONDS
  label = 'load'
  const [startTicks, startRedis, startBytes] = [ticks(), cpuTicks(redis.pid), await redis.bytesOut()]
  const seconds = await offer(DURATION)
  const cpu = (ticks() - startTicks) / 100
  const redisCPU = (cpuTicks(redis.pid) - startRedis) / 100 / seconds
  const bytesOut = (await redis.bytesOut()) - startBytes
  const sorted = [...latencies].sort((a, b) => a - b)
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
  for (const link of links) link.close()
  await Promise.all(services.map((service) => service.stop()))
  const delivered = Math.max(1, latencies.length)
  return {
    server,
    instances: count,
    placement,
    rate,
    sent: sequence,
    delivered: latencies.length,
    cpuPerMessage: (cpu / delivered) * 1e6,
    redisBytesPerMessage: bytesOut / delivered,
    idlePerInstance: idlePerSecond / count,
    redisCPU,
    p50: at(0.5),
    p99: at(0.99),
    load: loadavg()[0] ?? 0,
  }
}

export function printInstances(rows: InstanceFigures[]): void {
  console.log(`\ninstances: ${USERS} users (Parley's over /connect), ${DURATION} s at each size`)
  const header = ['server', 'instances', 'partners', 'msg/s', 'sent', 'delivered', 'CPU µs/msg', 'vs 1']
  header.push(
    'vs bare relays',
    'vs 1 at its rate',
    'Redis out B/msg',
    'idle CPU/instance',
    'Redis CPU',
    'p50 ms',
    'p99 ms',
    'load avg',
  )
  const find = (server: string, instances: number, placement: string, rate: number) =>
    rows.find(
      (row) =>
        row.server === server &&
        row.instances === instances &&
        row.placement === placement &&
        row.rate === rate,
    )
  /** CPU per message against one instance of the same server offered `rate`. */
  const growth = (row: InstanceFigures, rate: number) => {
    const one = find(row.server, 1, 'across', rate)
    return one ? row.cpuPerMessage / one.cpuPerMessage : undefined
  }
  const times = (ratio: number | undefined) => (ratio === undefined ? '' : `${ratio.toFixed(2)}×`)
  /** A build's growth from 1 instance at RATE divided by the bare relays' at the same size and placement. */
  const againstBare = (row: InstanceFigures) => {
    if (row.server === BARE || row.rate !== RATE) return undefined
    const bare = find(BARE, row.instances, row.placement, row.rate)
    const own = growth(row, RATE)
    const theirs = bare && growth(bare, RATE)
    return own && theirs ? own / theirs : undefined
  }
  const lines = rows.map((row) => [
    row.server,
    String(row.instances),
    row.placement,
    String(row.rate),
    String(row.sent),
    String(row.delivered),
    row.cpuPerMessage.toFixed(0),
    times(growth(row, RATE)), // against one instance offered RATE
    times(againstBare(row)),
    times(row.instances > 1 ? growth(row, row.rate / row.instances) : undefined), // against one offered what each gets
    row.redisBytesPerMessage.toFixed(0),
    `${(row.idlePerInstance * 100).toFixed(1)}%`,
    `${(row.redisCPU * 100).toFixed(0)}%`,
    row.p50.toFixed(1),
    row.p99.toFixed(1),
    row.load.toFixed(1),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)))
  for (const line of [header, ...lines])
    console.log(line.map((c, i) => c.padEnd(widths[i] as number)).join('  '))
}
