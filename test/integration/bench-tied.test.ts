import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { test } from 'vitest'
import { eventually } from '../support/poll.js'

/** Whether the process runs (a zombie, ended but not yet reaped, does not). */
const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z'
  } catch {
    return false
  }
}

// A benchmark killed by SIGKILL stops nothing it started: what it spawns (servers, Redis, load
// holders) must end by itself (bench/children.ts).
test.skipIf(process.platform !== 'linux')(
  'a process a benchmark spawned ends when the benchmark is killed',
  async () => {
    const script = `
      const { spawnChild } = await import('./bench/children.ts')
      const child = spawnChild(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
      console.log(child.pid)
      setInterval(() => {}, 1000)`
    const bench = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const [line] = (await once(createInterface({ input: bench.stdout }), 'line')) as [string]
    const pid = Number(line)
    try {
      bench.kill('SIGKILL')
      await eventually(() => !alive(pid), 'the spawned process ended', 20_000, 50)
    } finally {
      bench.kill('SIGKILL')
      if (alive(pid)) process.kill(pid, 'SIGKILL')
    }
  },
  60_000,
)
