import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readdirSync, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { DURATION } from '../lib.js'
import { spawnTied } from '../tied.js'
import { type Dial, dial, type Link, pool } from './links.js'

/** Users 0..PAIRS-1 write to users PAIRS..2·PAIRS-1 (1,000 users in 500 pairs, as in issue 21). */
export const PAIRS = Number(process.env.BENCH_PAIRS ?? 500)
/** The rates offered in turn, messages/s over all pairs. */
export const RATES = (process.env.BENCH_RATES ?? '1000,2000').split(',').map(Number)

export interface RateFigures {
  rate: number
  sentPerSecond: number
  receivedPerSecond: number
  p50: number
  p99: number
  /** Of one core: 1 = 100 %. */
  serverCPU: number
  databaseCPU: number
  generatorCPU: number
}

export interface RealtimeFigures {
  name: string
  sockets: number
  bytesPerSocket: number
  rates: RateFigures[]
}

const rssBytes = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024

/** utime + stime of a process, in 1/100 s (0 once it is gone). */
export function cpuTicks(pid: number | string): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return 0
  }
}

/** The PostgreSQL server's processes (all of them: the bench runs beside a local server). */
function postgresTicks(): Map<string, number> {
  const ticks = new Map<string, number>()
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') ticks.set(pid, cpuTicks(pid))
    } catch {
      // gone meanwhile
    }
  }
  return ticks
}

/** CPU seconds the PostgreSQL processes used since `before` (processes that ended are missed). */
function postgresSecondsSince(before: Map<string, number>): number {
  let ticks = 0
  for (const [pid, now] of postgresTicks()) ticks += now - (before.get(pid) ?? 0)
  return ticks / 100
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0

/** A server under test with its sockets open, the writers' partners listening. */
export interface Target {
  name: string
  pid: number
  /** The writers' links (the first PAIRS write to the next PAIRS); the idle ones are the holder's. */
  links: Link[]
  holder: ChildProcess
  sockets: number
  userIDs: string[]
  bytesPerSocket: number
  /** Messages sent so far (the next one's number). */
  sequence: number
  received: number
  latencies: number[]
}

/**
 * Opens a link per dial (the writers' here, the idle ones in a process of their own) and measures
 * the server's memory per open socket; then every writer sends one message (a warm-up that opens
 * every pair's room).
 */
export async function openTarget(
  name: string,
  pid: number,
  dials: Dial[],
  userIDs: string[],
): Promise<Target> {
  const before = rssBytes(pid)
  const links = await pool(dials.slice(0, 2 * PAIRS), 200, dial)
  const holder = await holdIdle(dials.slice(2 * PAIRS))
  await pause(2000)
  const target: Target = {
    name,
    pid,
    links,
    holder,
    sockets: dials.length,
    userIDs,
    bytesPerSocket: (rssBytes(pid) - before) / dials.length,
    sequence: 0,
    received: 0,
    latencies: [],
  }
  for (const link of links.slice(PAIRS, 2 * PAIRS))
    link.onMessage((body) => {
      target.received++
      target.latencies.push(performance.now() - Number(body))
    })
  sendRound(target, PAIRS)
  await pause(2000)
  return target
}

/** A process holding links per `dials` (idle-links.ts), once they are open. */
async function holdIdle(dials: Dial[]): Promise<ChildProcess> {
  const holder = spawnTied(process.execPath, ['--import', 'tsx', 'bench/realtime/idle-links.ts'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  holder.stdin?.write(`${JSON.stringify(dials)}\n`)
  const said = once(createInterface({ input: holder.stdout as NodeJS.ReadableStream }), 'line')
  const exited = once(holder, 'exit').then(() => {
    throw new Error('the idle links did not open')
  })
  await Promise.race([said, exited])
  return holder
}

export async function closeTarget(target: Target): Promise<void> {
  for (const link of target.links) link.close()
  const exited = once(target.holder, 'exit')
  target.holder.stdin?.end()
  await exited
}

/** The next `count` messages, each from the next writer to its partner. */
function sendRound(target: Target, count: number): void {
  const { links, userIDs } = target
  for (let i = 0; i < count; i++) {
    const from = target.sequence % PAIRS
    links[from]?.send(userIDs[PAIRS + from] as string, `m-${target.sequence++}`, String(performance.now()))
  }
}

/**
 * The PAIRS writers send to their partners at `rate` messages/s for `duration` s: send-to-receive
 * latency at the receivers, and the CPU of the server, of PostgreSQL and of this generator.
 */
export async function measureRate(target: Target, rate: number, duration = DURATION): Promise<RateFigures> {
  target.received = 0
  target.latencies.length = 0
  const startSent = target.sequence
  const startCPU = cpuTicks(target.pid)
  const startDatabase = postgresTicks()
  const startGenerator = process.cpuUsage()
  const started = performance.now()
  // Every 5 ms, what is due by now: a tick that comes late (the generator shares the cores with
  // the server) sends more, so every scenario is offered the same messages.
  const due = () => Math.floor(((performance.now() - started) * rate) / 1000) - (target.sequence - startSent)
  const ticker = setInterval(() => sendRound(target, due()), 5)
  await pause(duration * 1000)
  clearInterval(ticker)
  const seconds = (performance.now() - started) / 1000
  const generator = process.cpuUsage(startGenerator)
  const figures = {
    rate,
    sentPerSecond: (target.sequence - startSent) / seconds,
    serverCPU: (cpuTicks(target.pid) - startCPU) / 100 / seconds,
    databaseCPU: postgresSecondsSince(startDatabase) / seconds,
    generatorCPU: (generator.user + generator.system) / 1e6 / seconds,
  }
  // Delivered: what arrived by 3 s after the last send (late ones count in the latencies too);
  // the next rate starts drained.
  await pause(3000)
  const latencies = [...target.latencies].sort((a, b) => a - b)
  return {
    ...figures,
    receivedPerSecond: target.received / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  }
}
