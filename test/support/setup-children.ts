import { afterAll } from 'vitest'
import { killChildren, killChildrenNow } from './children.js'

// Whatever a test file started is gone when the file ends, also after a failure or a time-out
// (a timed-out test never reaches its own `finally`).
afterAll(killChildren)

// And when the run is interrupted (Ctrl-C, a CI time limit, `kill`): the worker goes, and what it
// started goes with it. A worker may run several files, each with modules of its own: the handler
// of the file now running replaces the one before.
const HANDLER = Symbol.for('parley.test.onInterrupt')
const slot = globalThis as { [HANDLER]?: (signal: NodeJS.Signals) => void }
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  const previous = slot[HANDLER]
  if (previous) process.removeListener(signal, previous)
}
slot[HANDLER] = (signal) => {
  killChildrenNow()
  process.kill(process.pid, signal)
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, slot[HANDLER])
