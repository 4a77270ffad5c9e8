import { type ChildProcess, type SpawnOptions, spawn, spawnSync } from 'node:child_process'

/** util-linux's setpriv, if it can ask Linux to signal a process when its parent dies (2.33 on). */
export const CAN_TIE =
  spawnSync('setpriv', ['--pdeathsig', 'TERM', '--', 'true'], { stdio: 'ignore' }).status === 0

/**
 * Spawns a process the benchmark needs (a server, Redis, a load holder) that ends with the
 * benchmark, even when the benchmark is killed by SIGKILL and can clean nothing up: it gets
 * SIGTERM when its parent dies (Linux's parent-death signal, set by setpriv, which then runs the
 * command in its own place: same process ID). Without such a setpriv, it is spawned as it is. (A
 * benchmark killed in the instant between the spawn and setpriv setting the signal leaves it.)
 */
export function spawnTied(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  return CAN_TIE
    ? spawn('setpriv', ['--pdeathsig', 'TERM', '--', command, ...args], options)
    : spawn(command, args, options)
}
