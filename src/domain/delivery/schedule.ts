/** The retry schedule (docs/reference/chatbot-webhook.md): 1 s, 2 s, 4 s … capped at 10 min, jittered down by up to 20 %. */
export const FIRST_RETRY_MS = 1000
export const MAX_RETRY_MS = 10 * 60 * 1000
/** After this long since the delivery was recorded, a failing delivery fails for good. */
export const GIVE_UP_AFTER_MS = 24 * 60 * 60 * 1000

/** The wait before attempt `attempts + 1`, after `attempts` failed ones; `jitter` is in [0, 1). */
export function retryDelay(attempts: number, jitter: number): number {
  const base = Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS)
  return Math.round(base * (1 - 0.2 * jitter))
}

/**
 * What an attempt's outcome means: done, try again later, or never. A refused destination (a
 * private address, see DestinationPolicy) will not become allowed by waiting: never.
 */
export function classify(status: number | 'network' | 'timeout' | 'refused'): 'sent' | 'retry' | 'failed' {
  if (status === 'refused') return 'failed'
  if (typeof status !== 'number') return 'retry'
  if (status >= 200 && status < 300) return 'sent'
  if (status === 408 || status === 429 || status >= 500) return 'retry'
  return 'failed'
}
