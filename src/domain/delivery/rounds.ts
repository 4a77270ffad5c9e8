/**
 * When the delivery worker's rounds run: one at a time (one asked for while another runs starts as
 * it ends), each as soon as asked or after a delay, the sooner of two asks winning. After a round
 * that found the worker idle, the next comes after `pollMs`.
 */
export class Rounds {
  private timer: NodeJS.Timeout | undefined
  /** When the round the timer holds is due (performance.now()); none pending: Infinity. */
  private dueAt = Number.POSITIVE_INFINITY
  private running = false
  /** Another round was asked for while one ran. */
  private again = false
  private stopped = true
  /** The round running, or the last: stopping waits for it. */
  current: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly round: () => Promise<{ idle: boolean }>,
    private readonly pollMs: number,
  ) {}

  start(): void {
    this.stopped = false
    this.after(0)
  }

  /**
   * A round after `delayMs` (or sooner, if one is due sooner); nothing before start (tests drive
   * rounds by hand) or once stopped.
   */
  after(delayMs: number): void {
    if (this.stopped) return
    if (this.running) {
      this.again = true
      return
    }
    const dueAt = performance.now() + delayMs
    if (dueAt >= this.dueAt) return
    this.dueAt = dueAt
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.run(), delayMs)
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
    this.dueAt = Number.POSITIVE_INFINITY
  }

  private async run(): Promise<void> {
    this.dueAt = Number.POSITIVE_INFINITY
    this.running = true
    this.again = false
    const round = this.round()
    this.current = round
    const { idle } = await round
    this.running = false
    if (this.again) this.after(0)
    else if (idle) this.after(this.pollMs)
  }
}
