// Counts of attempts per key in fixed windows (logins per address, uploads per uploader): in the
// process without Redis (one instance), in Redis with it (RedisCounter, storage/redis.ts: every
// instance counts together).

/** Counts per key within one window; the window's number is part of the key. */
export interface AttemptCounter {
  /** Adds one; answers the count after. */
  add(key: string, windowMs: number): Promise<number>
  /** Takes one back. */
  remove(key: string): Promise<void>
}

/** One process's counts (without Redis there is one instance). */
export class MemoryCounter implements AttemptCounter {
  private counts = new Map<string, number>()
  private window = ''

  async add(key: string): Promise<number> {
    // Keys name their window: when the window moves on, the old counts are dropped.
    const window = key.slice(key.lastIndexOf(':'))
    if (window !== this.window) {
      this.counts = new Map()
      this.window = window
    }
    const count = (this.counts.get(key) ?? 0) + 1
    this.counts.set(key, count)
    return count
  }

  async remove(key: string): Promise<void> {
    const count = this.counts.get(key)
    if (count !== undefined) this.counts.set(key, count - 1)
  }
}
