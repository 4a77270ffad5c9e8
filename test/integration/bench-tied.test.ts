import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { test } from 'vitest'
import { CAN_TIE } from '../../bench/tied.js'
import { spawnChild } from '../support/children.js'
import { eventually } from '../support/poll.js'

/** Whether the process runs (a zombie, ended but not yet reaped, does not). */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

// A benchmark killed by SIGKILL stops nothing it started: what it spawns (servers, Redis, load
// holders) must end by itself (bench/tied.ts). The benchmark here spawns a process that says when
// it runs (setpriv has set the signal by then), and then says its process ID.
test.skipIf(!CAN_TIE)(
  'a process a benchmark spawned ends when the benchmark is killed',
  async () => {
    const script = `
      const { once } = await import('node:events')
      const { spawnTied } = await import('./bench/tied.ts')
      const child = spawnTied(process.execPath, ['-e', 'console.log("up"); setInterval(() => {}, 1000)'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      await once(child.stdout, 'data')
      console.log(child.pid)
      setInterval(() => {}, 1000)`
    // The test's own spawn: should anything fail, the file's end kills the benchmark's group.
    const bench = spawnChild(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const said = once(createInterface({ input: bench.stdout as NodeJS.ReadableStream }), 'line')
    const ended = once(bench, 'exit').then(() => {
      throw new Error('the benchmark ended before it spawned')
    })
    const [line] = (await Promise.race([said, ended])) as [string]
    const pid = Number(line)
    bench.kill('SIGKILL')
    await eventually(() => !alive(pid), 'the spawned process ended', 20_000, 50)
  },
  60_000,
)
