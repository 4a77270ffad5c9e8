import { type FailureLog, logFailure } from '../../errors/faults.js'
import { Rounds } from '../delivery/rounds.js'
import type { ScheduledMessages } from './scheduled.service.js'

/** Scheduled messages one round claims and sends. */
const ROUND = 20

/**
 * Sends scheduled messages as they come due, on every instance: each round claims due ones
 * (leased, so instances share them and a dead instance's come back when the lease lapses) and
 * sends them one by one. Rounds run every `pollMs`, and at once again while a round was full.
 */
export class ScheduledSender {
  private readonly rounds: Rounds

  constructor(
    private readonly scheduled: ScheduledMessages,
    private readonly log: FailureLog,
    pollMs: number,
  ) {
    this.rounds = new Rounds(async () => {
      try {
        // A full round: there may be more due, so another at once.
        const full = (await this.sendDue()) === ROUND
        if (full) this.rounds.after(0)
        return { idle: !full }
      } catch (error) {
        // A database away is retried by the next round: a warning, not an error.
        logFailure(this.log, error, 'scheduled messages: round failed')
        return { idle: true }
      }
    }, pollMs)
  }

  start(): void {
    this.rounds.start()
  }

  async stop(): Promise<void> {
    this.rounds.stop()
    await this.rounds.current
  }

  /** One round: claims what is due and sends it; answers how many it claimed. */
  async sendDue(): Promise<number> {
    const claimed = await this.scheduled.claim({ limit: ROUND })
    for (const row of claimed) await this.scheduled.sendClaimed(row)
    return claimed.length
  }
}
