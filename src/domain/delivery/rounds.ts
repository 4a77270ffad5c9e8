/**
 * When the delivery worker's rounds run: as soon as asked or after a delay, the sooner of two asks
 * winning (asks while a round is due join it). After a round that found the worker idle, the next
 * comes after `pollMs`. A round asked for while one runs starts beside it: claims are transactions
 * and take different deliveries, and on PostgreSQL rounds one after another (their sweeps and
 * claims a few round trips each) delivered a quarter of what rounds side by side do.
 */
export class Rounds {
  private timer: NodeJS.Timeout | undefined
  /** When the round the timer holds is due (performance.now()); none pending: Infinity. */
  private dueAt = Number.POSITIVE_INFINITY
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
    const round = this.round()
    this.current = round
    if ((await round).idle) this.after(this.pollMs)
  }
}
