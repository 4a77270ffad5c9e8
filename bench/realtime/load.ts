import { readdirSync, readFileSync } from 'node:fs'
import { DURATION } from '../lib.js'
import type { Link } from './links.js'

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
function cpuTicks(pid: number | string): number {
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

/**
 * Measures the server's memory per open socket, then has the PAIRS senders write to their
 * partners at each of RATES messages/s for DURATION s: send-to-receive latency at the receivers,
 * and the CPU of the server, of PostgreSQL and of this generator.
 */
export async function measure(
  name: string,
  pid: number,
  open: () => Promise<Link[]>,
  userIDs: string[],
): Promise<RealtimeFigures> {
  const before = rssBytes(pid)
  const links = await open()
  await pause(2000)
  const bytesPerSocket = (rssBytes(pid) - before) / links.length
  let received = 0
  const latencies: number[] = []
  for (const link of links.slice(PAIRS, 2 * PAIRS))
    link.onMessage((body) => {
      received++
      latencies.push(performance.now() - Number(body))
    })
  let sequence = 0
  const sendRound = (count: number) => {
    for (let i = 0; i < count; i++) {
      const from = sequence % PAIRS
      links[from]?.send(userIDs[PAIRS + from] as string, `m-${sequence++}`, String(performance.now()))
    }
  }
  sendRound(PAIRS) // warm-up: opens every pair's room
  await pause(2000)
  const rates: RateFigures[] = []
  for (const rate of RATES) {
    received = 0
    latencies.length = 0
    const startSent = sequence
    const startCPU = cpuTicks(pid)
    const startDatabase = postgresTicks()
    const startGenerator = process.cpuUsage()
    const started = performance.now()
    // Every 5 ms, what is due by now: a tick that comes late (the generator shares the cores with
    // the server) sends more, so every scenario is offered the same messages.
    const due = () => Math.floor(((performance.now() - started) * rate) / 1000) - (sequence - startSent)
    const ticker = setInterval(() => sendRound(due()), 5)
    await pause(DURATION * 1000)
    clearInterval(ticker)
    const seconds = (performance.now() - started) / 1000
    const generator = process.cpuUsage(startGenerator)
    const figures = {
      rate,
      sentPerSecond: (sequence - startSent) / seconds,
      serverCPU: (cpuTicks(pid) - startCPU) / 100 / seconds,
      databaseCPU: postgresSecondsSince(startDatabase) / seconds,
      generatorCPU: (generator.user + generator.system) / 1e6 / seconds,
    }
    // Delivered: what arrived by 3 s after the last send (late ones count in the latencies too);
    // the next rate starts drained.
    await pause(3000)
    const receivedPerSecond = received / seconds
    latencies.sort((a, b) => a - b)
    rates.push({
      ...figures,
      receivedPerSecond,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
    })
  }
  for (const link of links) link.close()
  return { name, sockets: links.length, bytesPerSocket, rates }
}
