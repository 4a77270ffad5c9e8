import type { Clock } from '../lib/clock.js'
import type { AttemptCounter } from '../storage/counters.js'

/** Which limit refused a message (the label of parley_email_smtp_refusals_total). */
export type SMTPLimit = 'client' | 'sender'

const WINDOW_MS = 60_000

/**
 * The inbound SMTP listener's rates (docs/guides/email.md, "Limits of the listener"): messages a minute from one
 * client address (EMAIL_SMTP_PER_CLIENT_PER_MINUTE) and from one sending address
 * (EMAIL_SMTP_PER_SENDER_PER_MINUTE), 0: no limit. Counted at MAIL FROM, in Redis with several
 * instances; what is refused is counted for /metrics.
 */
export class SMTPRateLimits {
  readonly refusals: Record<SMTPLimit, number> = { client: 0, sender: 0 }

  constructor(
    private readonly deps: {
      counter: AttemptCounter
      clock: Clock
      perMinute: Readonly<Record<SMTPLimit, number>>
    },
  ) {}

  /** Counts a message from `sender` sent by `client`: the limit it is over, if any. */
  async over(client: string, sender: string): Promise<SMTPLimit | undefined> {
    const window = Math.floor(this.deps.clock.now() / WINDOW_MS)
    const keys: [SMTPLimit, string][] = [
      ['client', client],
      ['sender', sender.toLowerCase()],
    ]
    for (const [limit, key] of keys) {
      const most = this.deps.perMinute[limit]
      if (most === 0) continue
      if ((await this.deps.counter.add(`parley:smtp:${limit}:${key}:${window}`, WINDOW_MS)) > most) {
        this.refusals[limit]++
        return limit
      }
    }
    return undefined
  }
}
