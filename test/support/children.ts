import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// Every process a test starts (servers, CLI runs, redis-server, the examples, shell blocks) leads
// a process group of its own, written down in the run's register, so that it is killed with all it
// started (a shell block's background jobs too) however its test ended: when its test file ends
// (setup-children.ts), and, should a worker die before that, by the run's teardown, which then
// fails the run.

/** The register of the run (PARLEY_TEST_RUN, set by the global setup): a file per group. */
const register = () => join(tmpdir(), `parley-test-${process.env.PARLEY_TEST_RUN ?? 'solo'}-children`)

/** The groups this worker started since its current test file began. */
const started = new Set<ChildProcess>()

/** `spawn`, leading a process group of its own, registered until its test file ends. */
export function spawnChild(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true })
  if (child.pid === undefined) return child
  mkdirSync(register(), { recursive: true })
  writeFileSync(join(register(), String(child.pid)), [command, ...args].join(' ').slice(0, 500))
  started.add(child)
  return child
}

/** Kills every group this worker started for the current file, and waits for their leaders. */
export async function killChildren(): Promise<void> {
  const children = [...started]
  started.clear()
  await Promise.all(
    children.map(async (child) => {
      const exited =
        child.exitCode === null && child.signalCode === null
          ? new Promise((resolve) => child.once('exit', resolve))
          : undefined
      signalGroup(child.pid as number, 'SIGKILL')
      await exited
      rmSync(join(register(), String(child.pid)), { force: true })
    }),
  )
}

/** Kills every group this worker started, at once (a worker that is being interrupted cannot wait). */
export function killChildrenNow(): void {
  for (const child of started) signalGroup(child.pid as number, 'SIGKILL')
}

/**
 * For the run's teardown: kills each registered group that still has a live process, says what
 * its leader was, and forgets the register.
 */
export function killLeftovers(): string[] {
  mkdirSync(register(), { recursive: true })
  const left = readdirSync(register())
    .filter((name) => signalGroup(Number(name), 0))
    .map((name) => {
      signalGroup(Number(name), 'SIGKILL')
      return `group ${name}: ${readFileSync(join(register(), name), 'utf8')}`
    })
  rmSync(register(), { recursive: true, force: true })
  return left
}

/** Sends `signal` to the group; false when no process of it is left. */
/** Signals the process group `pid` leads (spawnChild's): the leader and all it started. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal)
    return true
  } catch {
    return false
  }
}
