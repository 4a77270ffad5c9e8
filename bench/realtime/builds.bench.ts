import { dirname, resolve } from 'node:path'
import { measureRate, type RateFigures } from './load.js'
import { type Running, startParley } from './realtime.bench.js'

// `BENCH_PARLEY=dist/main.js,<before>/dist/main.js npm run bench -- --builds`: a send on PostgreSQL
// in each build, the builds up at once (SOCKETS sockets each, a database each) and measured in
// alternated rounds of ROUND_SECONDS at RATE msg/s. The server started first measured 7-17 % more
// CPU than the one started after it, whichever build it was, and alternating rounds does not
// cancel that: the whole run is made twice, the builds started in one order and then in the other.

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 10_000)
const RATE = Number(process.env.BENCH_BUILDS_RATE ?? 1000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const ROUND_SECONDS = Number(process.env.BENCH_DURATION ?? 10)

export interface BuildFigures {
  server: string
  rounds: RateFigures[]
}

export async function benchBuilds(postgresURL: string, servers: string[]): Promise<BuildFigures[]> {
  const figures = servers.map((server): BuildFigures => ({ server, rounds: [] }))
  for (const order of [servers, [...servers].reverse()]) {
    const running: (Running & { server: string })[] = []
    try {
      for (const server of order)
        running.push({ server, ...(await startBuild(postgresURL, servers, server)) })
      for (let round = 0; round < ROUNDS; round++)
        for (const build of round % 2 === 0 ? running : [...running].reverse())
          figures[servers.indexOf(build.server)]?.rounds.push(
            await measureRate(build.target, RATE, ROUND_SECONDS),
          )
    } finally {
      for (const build of running) await build.stop()
    }
  }
  return figures
}

/**
 * The build's server on a database of its own, its sockets open; its own CLI makes the organization
 * (another build's migrations may differ).
 */
const startBuild = (postgresURL: string, servers: string[], server: string) =>
  startParley('PostgreSQL', postgresURL, {
    server: resolve(server),
    root: dirname(dirname(resolve(server))),
    databaseName: `parley_bench_${process.pid}_${servers.indexOf(server)}`,
  })

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / (values.length || 1)

export function printBuilds(rows: BuildFigures[]): void {
  console.log(
    `\nBuilds side by side: PostgreSQL, ${SOCKETS} sockets each, ${RATE} msg/s, ` +
      `${ROUNDS} rounds of ${ROUND_SECONDS} s in each start order; means of all rounds`,
  )
  const [first] = rows
  const cpuOf = (row: BuildFigures) => mean(row.rounds.map((r) => r.serverCPU))
  for (const row of rows) {
    const received = mean(row.rounds.map((r) => r.receivedPerSecond / r.sentPerSecond))
    const cpu = cpuOf(row)
    const ratio = first ? (cpu / cpuOf(first)).toFixed(2) : '1.00'
    console.log(
      `${row.server}: server CPU ${(cpu * 100).toFixed(1)} % (${ratio}× the first) · ` +
        `p50 ${mean(row.rounds.map((r) => r.p50)).toFixed(2)} ms · p99 ${mean(row.rounds.map((r) => r.p99)).toFixed(1)} ms · ` +
        `PostgreSQL CPU ${(mean(row.rounds.map((r) => r.databaseCPU)) * 100).toFixed(1)} % · ` +
        `received ${(received * 100).toFixed(1)} % · rounds p50 ${row.rounds.map((r) => r.p50.toFixed(1)).join('/')}`,
    )
  }
}
