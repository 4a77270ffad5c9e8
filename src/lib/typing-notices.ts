import type { Clock } from './clock.js'

/** A repeated typing notice within this many ms is not relayed again (clients repeat every few seconds). */
export const TYPING_REPEAT_MS = 5000

/**
 * The last typing notice relayed per key (a room of one socket, an agent's case): a repeat of the
 * same notice within `repeatMs` is not news. At most `maxKeys` are remembered (the oldest go).
 */
export class TypingNotices {
  private readonly last = new Map<string, { eventName: string; at: number }>()

  constructor(
    private readonly clock: Clock,
    private readonly repeatMs: number,
    private readonly maxKeys: number,
  ) {}

  /**
   * Whether a typing notice is news: a change from the key's last relayed notice, or the same
   * one again after `repeatMs` (clients repeat startTyping while the user keeps typing).
   */
  isNews(key: string, eventName: string): boolean {
    const last = this.last.get(key)
    return last === undefined || last.eventName !== eventName || this.clock.now() - last.at >= this.repeatMs
  }

  /** Records a relayed typing notice. */
  relayed(key: string, eventName: string): void {
    this.last.delete(key)
    this.last.set(key, { eventName, at: this.clock.now() })
    // Maps iterate in insertion order: the first key is the longest unrefreshed.
    if (this.last.size > this.maxKeys) this.last.delete(this.last.keys().next().value as string)
  }
}
