import { type ChildProcess, type SpawnOptions, spawn, spawnSync } from 'node:child_process'

/** util-linux's setpriv, which can ask Linux to signal a process when its parent dies. */
const HAVE_SETPRIV = spawnSync('setpriv', ['--help'], { stdio: 'ignore' }).status === 0

/**
 * Spawns a process the benchmark needs (a server, Redis, a load holder) that ends with the
 * benchmark, even when the benchmark is killed by SIGKILL and can clean nothing up: it gets
 * SIGTERM when its parent dies (Linux's parent-death signal, set by setpriv, which then runs the
 * command in its own place: same process ID). Without setpriv, it is spawned as it is.
 */
export function spawnChild(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  return HAVE_SETPRIV
    ? spawn('setpriv', ['--pdeathsig', 'SIGTERM', '--', command, ...args], options)
    : spawn(command, args, options)
}
