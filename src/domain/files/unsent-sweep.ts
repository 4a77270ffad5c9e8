import type { Files } from './files.service.js'

/**
 * Sweeps files never sent every `everyMs` (on every instance: a sweep takes rows no other sweep
 * has), one sweep at a time: a tick while one runs is skipped. Its stop.
 */
export function sweepUnsentFiles(
  files: Files,
  everyMs: number,
  log: { warn: (o: object, m: string) => void },
) {
  let sweeping = false
  const timer = setInterval(() => {
    if (sweeping) return
    sweeping = true
    files
      .sweepUnsent()
      .catch((error: unknown) => log.warn({ err: error }, 'sweeping unsent files failed'))
      .finally(() => {
        sweeping = false
      })
  }, everyMs)
  timer.unref()
  return () => clearInterval(timer)
}
