import { freshStorage, newOrganization, poster, signIn, startService } from '../lib.js'
import { type Dial, pool } from './links.js'
import {
  closeTarget,
  measureRate,
  openTarget,
  PAIRS,
  RATES,
  type RateFigures,
  type RealtimeFigures,
  type Target,
} from './load.js'

// Real time (issues 4 and 21): one instance holds SOCKETS authenticated sockets (the 2·PAIRS
// users who write, the rest idle), then the pairs write at each of RATES, next to a bare `ws`
// relay and a Socket.IO relay doing the same without storing anything. Parley on SQLite and the
// Socket.IO relay, whose CPU the issue compares, are measured in ROUNDS alternating rounds.
const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 10_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
/**
 * Each of those rounds lasts a whole ping interval (25 s for both servers), so that each pays its
 * pings of 10,000 sockets once per round: in 10 s rounds the relay's burst of pings fell in some
 * rounds and not in others (its idle CPU was 0 % in one 15 s round and 8 % in the next).
 */
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 25)

/** A server under test, its sockets open. */
export interface Running {
  target: Target
  stop(): Promise<void>
}

const userIDs = Array.from({ length: SOCKETS }, (_, i) => String(i))

async function startRelay(kind: 'ws' | 'Socket.IO'): Promise<Running> {
  const script = kind === 'ws' ? 'bench/realtime/bare-ws-relay.ts' : 'bench/realtime/socketio-relay.ts'
  const service = await startService(['--import', 'tsx', script], {})
  const wsURL = service.url.replace('http', 'ws')
  const dials = userIDs.map(
    (id): Dial =>
      kind === 'ws' ? { kind: 'ws relay', url: `${wsURL}/?id=${id}` } : { kind, url: service.url, id },
  )
  const name = kind === 'ws' ? 'bare ws relay (baseline)' : 'Socket.IO relay (peer baseline)'
  const pid = service.child.pid as number
  return started(() => openTarget(name, pid, dials, userIDs), service.stop)
}

/** The target once open; if opening fails, the server stopped. */
async function started(open: () => Promise<Target>, stop: () => Promise<void>): Promise<Running> {
  try {
    const target = await open()
    const closeAndStop = async () => {
      await closeTarget(target)
      await stop()
    }
    return { target, stop: closeAndStop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** Each of RATES in turn, once. */
async function measureOnce({ target, stop }: Running): Promise<RealtimeFigures> {
  try {
    const rates: RateFigures[] = []
    for (const rate of RATES) rates.push(await measureRate(target, rate))
    return figuresOf(target, rates)
  } finally {
    await stop()
  }
}

const figuresOf = (target: Target, rates: RateFigures[]): RealtimeFigures => ({
  name: target.name,
  sockets: target.sockets,
  bytesPerSocket: target.bytesPerSocket,
  rates,
})

export const benchRelay = async (kind: 'ws' | 'Socket.IO') => measureOnce(await startRelay(kind))

/** A build of Parley: its server's entry point, the tree whose CLI makes the organization, its database's name. */
export interface Build {
  server: string
  root: string
  databaseName?: string
}

export async function startParley(
  database: 'SQLite' | 'PostgreSQL',
  postgresURL?: string,
  build: Build = { server: 'dist/main.js', root: '.' },
): Promise<Running> {
  const storage = await freshStorage(postgresURL, build.databaseName)
  // Its hundreds of users all connect from 127.0.0.1: no cap per address.
  const service = await startService([build.server], { ...storage.env, CONNECTIONS_PER_ADDRESS: '0' })
  const stop = async () => {
    await service.stop()
    await storage.drop()
  }
  const open = async () => {
    const { serverKey } = newOrganization(storage.env, build.root)
    const post = poster(service.url)
    const users = await pool(userIDs, 50, (i) => signIn(post, serverKey, `bench-${i}`))
    const url = `${service.url.replace('http', 'ws')}/connect`
    const dials = users.map((user): Dial => ({ kind: 'parley', url, headers: user.auth }))
    const ids = users.map((user) => user.userID)
    return openTarget(`Parley /connect (${database})`, service.child.pid as number, dials, ids)
  }
  return started(open, stop)
}

export const benchRealtime = async (database: 'SQLite' | 'PostgreSQL', postgresURL?: string) =>
  measureOnce(await startParley(database, postgresURL))

/** Server CPU of Parley on SQLite and of the Socket.IO relay (1 = a core) at one rate, by round. */
export interface CPURatios {
  rate: number
  byRound: { parley: number; relay: number }[]
}

/**
 * Parley on SQLite and the Socket.IO relay, both up, measured in ROUNDS alternating rounds at each
 * rate, so that a machine whose speed drifts during the run weighs on both alike. Each figure of
 * the rows is the rounds' mean, but p50 their median and p99 the worst round's.
 */
export async function benchAgainstSocketIO(): Promise<{ rows: RealtimeFigures[]; ratios: CPURatios[] }> {
  const relay = await startRelay('Socket.IO')
  const parley = await startParley('SQLite').catch(async (error: unknown) => {
    await relay.stop()
    throw error
  })
  try {
    const relayRates: RateFigures[] = []
    const parleyRates: RateFigures[] = []
    const ratios: CPURatios[] = []
    for (const rate of RATES) {
      const rounds: [RateFigures, RateFigures][] = []
      for (let round = 0; round < ROUNDS; round++)
        rounds.push([
          await measureRate(relay.target, rate, ROUND_SECONDS),
          await measureRate(parley.target, rate, ROUND_SECONDS),
        ])
      relayRates.push(combined(rounds.map(([r]) => r)))
      parleyRates.push(combined(rounds.map(([, p]) => p)))
      ratios.push({ rate, byRound: rounds.map(([r, p]) => ({ parley: p.serverCPU, relay: r.serverCPU })) })
    }
    return { rows: [figuresOf(relay.target, relayRates), figuresOf(parley.target, parleyRates)], ratios }
  } finally {
    await Promise.all([relay.stop(), parley.stop()])
  }
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

function combined(rounds: RateFigures[]): RateFigures {
  const of = (key: keyof RateFigures) => rounds.map((r) => r[key])
  return {
    rate: rounds[0]?.rate ?? 0,
    sentPerSecond: mean(of('sentPerSecond')),
    receivedPerSecond: mean(of('receivedPerSecond')),
    p50: median(of('p50')),
    p99: Math.max(...of('p99')),
    serverCPU: mean(of('serverCPU')),
    databaseCPU: mean(of('databaseCPU')),
    generatorCPU: mean(of('generatorCPU')),
  }
}

export function printRealtime(rows: RealtimeFigures[], ratios: CPURatios[]): void {
  console.log(`\nreal time: ${SOCKETS} sockets, ${PAIRS} pairs writing, each rate for the same seconds`)
  const header = ['scenario', 'KB/socket', 'offered/s', 'sent/s', 'recv/s', 'p50 ms', 'p99 ms']
  header.push('server CPU', 'PostgreSQL CPU', 'generator CPU')
  const cpu = (share: number) => `${(share * 100).toFixed(0)}%`
  const lines = rows.flatMap((r) =>
    r.rates.map((rate) => [
      r.name,
      (r.bytesPerSocket / 1024).toFixed(1),
      String(rate.rate),
      rate.sentPerSecond.toFixed(0),
      rate.receivedPerSecond.toFixed(0),
      rate.p50.toFixed(1),
      rate.p99.toFixed(1),
      cpu(rate.serverCPU),
      cpu(rate.databaseCPU),
      cpu(rate.generatorCPU),
    ]),
  )
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)))
  for (const line of [header, ...lines])
    console.log(line.map((c, i) => c.padEnd(widths[i] as number)).join('  '))
  console.log(`(rates offered in turn: ${RATES.join(', ')} msg/s)`)
  console.log(
    `Parley on SQLite and the Socket.IO relay: ${ROUNDS} rounds of ${ROUND_SECONDS} s in turn, their mean (p99: the worst)`,
  )
  for (const { rate, byRound } of ratios) {
    const ratio = (parley: number, relay: number) => `${(parley / relay).toFixed(1)}×`
    const each = byRound.map((r) => `${ratio(r.parley, r.relay)} (${cpu(r.parley)} / ${cpu(r.relay)})`)
    const all = ratio(mean(byRound.map((r) => r.parley)), mean(byRound.map((r) => r.relay)))
    console.log(
      `server CPU, SQLite ÷ Socket.IO at ${rate}/s: ${all} over the rounds; by round ${each.join(', ')}`,
    )
  }
}
