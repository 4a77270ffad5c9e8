import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** V8's own factor (Node 20 to 24), given back once the server has started. */
const GROWTH_FACTOR = 2

type Collect = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void

/** V8 11 (Node 20) takes `{ type: 'major' }` for a minor collection; its plain gc() is a full one. */
const GC_OPTIONS = Number(process.versions.v8.split('.')[0]) >= 12

/**
 * Keeps start-up from leaving memory behind that an idle server never gives back (docs/benchmarks.md,
 * start-up). While the server starts, V8's young generation is held at its first size: V8
 * doubles it whenever most of it survives a collection, and start-up is almost all survivors
 * (modules, routes, prepared statements), so Node 24 grew it to 32 MB it no longer needs. Held,
 * those survivors go straight to the old generation, where they were bound anyway.
 *
 * `release()`, once the server listens, gives growth back (load grows the young generation as
 * before) and runs one collection of the kind V8's memory reducer runs in an idle process:
 * compacting, shrinking, returning freed pages. Node 20 and 22 run it themselves some seconds
 * later; Node 24's reducer never does for a server that sits idle (`--trace-memory-reducer` says
 * "high alloc" every 8 s, for ever). The collection is reached the way V8 offers it, its `gc`
 * function, exposed for a moment in a context of its own.
 *
 * A command line that sets the young generation's size or growth itself is left alone.
 */
export function holdStartUpMemory(): { release(): void } {
  const chosen = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) =>
    /semi[-_]space/.test(arg),
  )
  if (!chosen) setFlagsFromString('--semi-space-growth-factor=1')
  return {
    release() {
      if (!chosen) setFlagsFromString(`--semi-space-growth-factor=${GROWTH_FACTOR}`)
      collectGarbage()
    },
  }
}

function collectGarbage(): void {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as Collect
  setFlagsFromString('--no-expose-gc')
  if (GC_OPTIONS) gc({ type: 'major', execution: 'sync', flavor: 'last-resort' })
  else gc()
}
