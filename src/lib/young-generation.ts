import { setFlagsFromString } from 'node:v8'

/** V8's own factor (Node 20 to 24), given back once the server has started. */
const GROWTH_FACTOR = 2

/**
 * Keeps V8's young generation at its first size while the server starts. V8 doubles the young
 * generation whenever most of what it holds survives a collection, and start-up is almost all
 * survivors (loaded modules, routes, prepared statements), so by the time the server listens
 * Node 24 has grown it to 32 MB it no longer needs. An idle Node 24 then never collects again,
 * so it never shrinks: a third of its idle memory (README, Performance). Held back, start-up's
 * survivors go straight to the old generation, where they were bound anyway; once released, load
 * grows the young generation as before.
 *
 * A command line that sets the young generation's size or growth itself is left alone.
 */
export function holdYoungGeneration(): { release(): void } {
  const chosen = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) =>
    /semi[-_]space/.test(arg),
  )
  if (chosen) return { release() {} }
  setFlagsFromString('--semi-space-growth-factor=1')
  return {
    release() {
      setFlagsFromString(`--semi-space-growth-factor=${GROWTH_FACTOR}`)
    },
  }
}
