import type { FastifyReply } from 'fastify'
import { AppError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { AttemptCounter } from '../../storage/counters.js'

// Password spraying: one address trying a few passwords on many accounts never trips the
// per-account limit. This one counts failed logins per address across accounts, in fixed
// windows of the injected clock. An attempt is counted before its password is hashed (so
// parallel attempts cannot all slip under the limit) and given back when the login succeeds (so
// an office behind one address can sign everyone in).

/** Failed logins per minute from one address, across accounts. */
export const FAILED_LOGINS_PER_ADDRESS_PER_MINUTE = 30
const WINDOW_MS = 60_000

export class AddressLoginLimit {
  /** The login under way per address here: one at a time, so parallel attempts are counted exactly. */
  private readonly turns = new Map<string, Promise<unknown>>()

  constructor(
    private readonly counter: AttemptCounter,
    private readonly clock: Clock,
    private readonly max = FAILED_LOGINS_PER_ADDRESS_PER_MINUTE,
  ) {}

  /**
   * Runs `login` for `address` once the address's earlier logins (on this instance) are done, or
   * refuses it (429 with Retry-After) when the address has used up its failures. The attempt is
   * counted before `login` hashes anything, and given back if `login` succeeds.
   */
  async attempt<T>(address: string, reply: FastifyReply, login: () => Promise<T>): Promise<T> {
    const previous = this.turns.get(address) ?? Promise.resolve()
    const turn = previous.catch(() => {}).then(() => this.counted(address, reply, login))
    this.turns.set(address, turn)
    try {
      return await turn
    } finally {
      if (this.turns.get(address) === turn) this.turns.delete(address)
    }
  }

  private async counted<T>(address: string, reply: FastifyReply, login: () => Promise<T>): Promise<T> {
    const now = this.clock.now()
    const window = Math.floor(now / WINDOW_MS)
    const key = `parley:login-failures:${address}:${window}`
    if ((await this.counter.add(key, WINDOW_MS)) > this.max) {
      await this.counter.remove(key)
      reply.header('retry-after', String(Math.ceil(((window + 1) * WINDOW_MS - now) / 1000)))
      throw new AppError('rateLimited', 'too many failed sign-ins from this address; try again later')
    }
    const result = await login()
    await this.counter.remove(key)
    return result
  }
}
