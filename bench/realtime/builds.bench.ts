import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import pg from 'pg'
import { newOrganization, poster, signIn, startService } from '../lib.js'
import { type Dial, pool } from './links.js'
import { closeTarget, measureRate, openTarget, type RateFigures, type Target } from './load.js'

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

interface Running {
  server: string
  target: Target
  stop(): Promise<void>
}

export async function benchBuilds(postgresURL: string, servers: string[]): Promise<BuildFigures[]> {
  const figures = servers.map((server): BuildFigures => ({ server, rounds: [] }))
  for (const order of [servers, [...servers].reverse()]) {
    const running: Running[] = []
    try {
      for (const server of order) running.push(await startBuild(postgresURL, server, servers.indexOf(server)))
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

/** The build's server on a database of its own, its sockets open; its CLI makes the organization. */
async function startBuild(postgresURL: string, server: string, index: number): Promise<Running> {
  const name = `parley_builds_${process.pid}_${index}`
  const admin = new pg.Client({ connectionString: postgresURL })
  await admin.connect()
  await admin.query(`drop database if exists ${name} with (force)`)
  await admin.query(`create database ${name}`)
  const url = new URL(postgresURL)
  url.pathname = `/${name}`
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-'))
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: url.toString(),
    PARLEY_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
    CONNECTIONS_PER_ADDRESS: '0',
  }
  const drop = async () => {
    await admin.query(`drop database if exists ${name} with (force)`)
    await admin.end()
    rmSync(dataDir, { recursive: true, force: true })
  }
  const service = await startService([resolve(server)], env).catch(async (error) => {
    await drop()
    throw error
  })
  const stopServer = async () => {
    await service.stop()
    await drop()
  }
  try {
    // The build's own CLI: another build's migrations may differ.
    const { serverKey } = newOrganization(env, dirname(dirname(resolve(server))))
    const post = poster(service.url)
    const ids = Array.from({ length: SOCKETS }, (_, i) => String(i))
    const users = await pool(ids, 50, (i) => signIn(post, serverKey, `bench-${i}`))
    const socketURL = `${service.url.replace('http', 'ws')}/connect`
    const dials = users.map((user): Dial => ({ kind: 'parley', url: socketURL, headers: user.auth }))
    const userIDs = users.map((user) => user.userID)
    const target = await openTarget(server, service.child.pid as number, dials, userIDs)
    return {
      server,
      target,
      stop: async () => {
        await closeTarget(target)
        await stopServer()
      },
    }
  } catch (error) {
    await stopServer()
    throw error
  }
}

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
