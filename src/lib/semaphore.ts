/** At most `limit` tasks at once; the others wait their turn, first come first served. */
export class Semaphore {
  private active = 0
  private readonly waiting: (() => void)[] = []
  /** The most tasks that ever ran at once, and how many have started: for tests and metrics. */
  peak = 0
  started = 0

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve))
    else this.active++
    this.started++
    this.peak = Math.max(this.peak, this.active)
    try {
      return await task()
    } finally {
      // The slot passes straight to the next waiter, so a newcomer cannot overtake it.
      const next = this.waiting.shift()
      if (next) next()
      else this.active--
    }
  }
}
