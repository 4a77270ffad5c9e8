import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { spawnTied } from './tied.js'

/** What the /healthz probe saw over a stretch of time; a failed probe counts as infinitely slow. */
export interface ProbeFigures {
  probes: number
  failed: number
  p50: number
  p99: number
  max: number
}

export function probeFigures(latencies: number[]): ProbeFigures {
  const sorted = [...latencies].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
  return {
    probes: sorted.length,
    failed: sorted.filter((ms) => ms === Number.POSITIVE_INFINITY).length,
    p50: at(0.5),
    p99: at(0.99),
    max: sorted.at(-1) ?? 0,
  }
}

export const describeProbe = (f: ProbeFigures) =>
  `/healthz p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms, max ${f.max.toFixed(1)} ms (${f.probes} probes, ${f.failed} failed)`

export interface Probe {
  /** The figures since the last call (or since the probe started). */
  figures(): Promise<ProbeFigures>
  /** Ends the probe: the figures since the last call. */
  stop(): Promise<ProbeFigures>
  /** Ends the probe at once, if it still runs (a benchmark that failed): no figures. */
  kill(): void
}

/** Starts healthz-probe.ts against `url` in a process of its own; answers once it probes. */
export async function startProbe(url: string): Promise<Probe> {
  const child = spawnTied(process.execPath, ['--import', 'tsx', 'bench/healthz-probe.ts', url], {
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const exited = once(child, 'exit')
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]()
  const nextLine = async () => {
    const { value, done } = await lines.next()
    if (done) throw new Error('the /healthz probe ended early')
    return value as string
  }
  const latencies = async () =>
    probeFigures(
      (JSON.parse(await nextLine()) as (number | null)[]).map((ms) => ms ?? Number.POSITIVE_INFINITY),
    )
  await nextLine()
  return {
    figures: () => {
      child.kill('SIGUSR2')
      return latencies()
    },
    stop: async () => {
      child.kill('SIGTERM')
      const figures = await latencies()
      await exited
      return figures
    },
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    },
  }
}
