// Waiting between attempts: exponential backoff with full jitter (a random delay between 0 and
// the exponential ceiling), so that many clients cut off at once do not come back at once.

export interface BackoffOptions {
  /** The ceiling of the first retry's delay (default 500 ms). */
  minDelayMs?: number
  /** The highest ceiling (default 30 s). */
  maxDelayMs?: number
}

export const BACKOFF_DEFAULTS = { minDelayMs: 500, maxDelayMs: 30_000 }

/** The delay before retry number `attempt` (0 for the first retry). */
export function backoffDelay(attempt: number, options: Required<BackoffOptions>, random = Math.random) {
  const ceiling = Math.min(options.maxDelayMs, options.minDelayMs * 2 ** Math.min(attempt, 30))
  return Math.floor(random() * ceiling)
}

/**
 * Sleeps that can be cut short: `wake()` ends every current sleep at once (the server is back,
 * so an outbox waiting out its backoff sends now), and `cancel()` also makes them report it.
 */
export class Sleeper {
  private readonly sleeping = new Set<(woken: boolean) => void>()

  /** Resolves after `ms`, or earlier on wake/cancel; true unless cancelled. */
  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(true), ms)
      const finish = (result: boolean) => {
        clearTimeout(timer)
        this.sleeping.delete(finish)
        resolve(result)
      }
      this.sleeping.add(finish)
    })
  }

  wake(): void {
    for (const finish of [...this.sleeping]) finish(true)
  }

  cancel(): void {
    for (const finish of [...this.sleeping]) finish(false)
  }
}
