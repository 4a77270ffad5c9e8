import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './lib.js'
import { spawnTied } from './tied.js'

// Start-up: `node dist/main.js` as `npm start` runs it (SQLite, the default configuration, a fresh
// DATA_DIR each time), against a bare Fastify server started the same way (plain node, no loader):
// the time from spawning to the first 200 of /healthz, the CPU the process spent until then, and
// its resident memory a second after (as a health check finds it) and once idle (35 s on: Node 20
// and 22 have shrunk a young generation grown while loading by then; Node 24 never does).

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 5)
/** Another build to compare (an older dist/ copied aside, say); dist/main.js unless given. */
const MAIN = process.env.BENCH_STARTUP_MAIN ?? 'dist/main.js'
const IDLE_AFTER_MS = Number(process.env.BENCH_STARTUP_IDLE_MS ?? 35_000)
const TICKS_PER_SECOND = 100

export interface StartupFigures {
  name: string
  /** Medians of RUNS starts. */
  healthzMs: number
  cpuMs: number
  rssMB: number
  idleRSSMB: number
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function rssMB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024
}

/** User and system CPU time the process has used (from /proc: utime and stime, in clock ticks). */
function cpuMs(pid: number): number {
  const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND
}

interface Start {
  child: ChildProcess
  healthzMs: number
  cpuMs: number
  rssMB: number
}

async function startOnce(args: string[], running: ChildProcess[]): Promise<Start> {
  const port = await freePort()
  const started = performance.now()
  const child = spawnTied(process.execPath, args, {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'parley-bench-startup-')),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  running.push(child)
  let exited = false
  child.on('exit', () => {
    exited = true
  })
  for (;;) {
    if (exited) throw new Error(`${args.join(' ')} exited before answering /healthz`)
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (response) => response.status === 200,
      () => false,
    )
    if (ok) break
    await sleep(5)
  }
  const healthzMs = performance.now() - started
  const cpu = cpuMs(child.pid as number)
  await sleep(1000)
  return { child, healthzMs, cpuMs: cpu, rssMB: rssMB(child.pid as number) }
}

/**
 * RUNS starts, one after another; each process is kept running (to be measured idle later) in
 * `running`, which the caller stops, whether or not every start succeeded.
 */
async function measure(
  name: string,
  args: string[],
  running: ChildProcess[],
): Promise<{ figures: StartupFigures; starts: Start[] }> {
  const starts: Start[] = []
  for (let run = 0; run < RUNS; run++) starts.push(await startOnce(args, running))
  const figures = {
    name,
    healthzMs: median(starts.map((start) => start.healthzMs)),
    cpuMs: median(starts.map((start) => start.cpuMs)),
    rssMB: median(starts.map((start) => start.rssMB)),
    idleRSSMB: 0,
  }
  return { figures, starts }
}

export async function benchStartup(): Promise<StartupFigures[]> {
  // bench/bare-server.ts is plain JavaScript: run by node itself, without tsx's loader.
  const bareSource = readFileSync(new URL('./bare-server.ts', import.meta.url), 'utf8')
  const running: ChildProcess[] = []
  try {
    const measured = [
      await measure('bare Fastify server (baseline)', ['--input-type=module', '-e', bareSource], running),
      await measure(`Parley, SQLite (node ${MAIN})`, [MAIN], running),
    ]
    await sleep(IDLE_AFTER_MS)
    for (const { figures, starts } of measured)
      figures.idleRSSMB = median(starts.map(({ child }) => rssMB(child.pid as number)))
    return measured.map(({ figures }) => figures)
  } finally {
    for (const child of running) child.kill('SIGTERM')
  }
}

export function printStartup(rows: StartupFigures[]): void {
  const [baseline] = rows
  if (!baseline) return
  console.log(
    `\nStart-up: medians of ${RUNS} starts (fresh DATA_DIR each); RSS 1 s after the first 200 of /healthz, ` +
      `and idle (${IDLE_AFTER_MS / 1000} s after start)`,
  )
  const header = ['process', 'to /healthz ms', 'vs bare', 'CPU ms', 'vs bare', 'RSS MB', 'idle RSS MB']
  const lines = rows.map((row) => [
    row.name,
    row.healthzMs.toFixed(0),
    `${(row.healthzMs / baseline.healthzMs).toFixed(2)}×`,
    row.cpuMs.toFixed(0),
    `${(row.cpuMs / baseline.cpuMs).toFixed(2)}×`,
    row.rssMB.toFixed(1),
    row.idleRSSMB.toFixed(1),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)))
  const format = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ')
  console.log(format(header))
  for (const line of lines) console.log(format(line))
}
