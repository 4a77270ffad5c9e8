interface Waiting<K, V> {
  key: K
  resolve(value: V): void
  reject(error: unknown): void
}

/**
 * Reads of one kind, many to a round trip when the database is busy: a read goes out at once while
 * fewer than `maxInFlight` of its kind are on their way; one that arrives while they are waits
 * for the first of them to come back and goes out with every other read that waited, in one
 * query. So an idle server answers as fast as before, and a busy one makes a round trip per batch
 * instead of per read: on PostgreSQL it is the round trip (a write to the server's socket and its
 * wake-up) that costs most, not the lookup.
 *
 * Each read still starts after it was asked for (a batch goes out only after its last read
 * joined), so it sees every write committed before: batching costs no freshness. A failed batch
 * fails each read in it, as each read alone would have failed.
 */
export class BatchedReads<K, V> {
  private waiting: Waiting<K, V>[] = []
  private inFlight = 0

  constructor(
    /** The values for these keys, in their order, in one query. */
    private readonly readMany: (keys: K[]) => Promise<V[]>,
    private readonly maxInFlight = 2,
  ) {}

  read(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      this.waiting.push({ key, resolve, reject })
      if (this.inFlight < this.maxInFlight) this.send()
    })
  }

  private send(): void {
    const batch = this.waiting
    this.waiting = []
    this.inFlight++
    // readMany's own throw becomes a rejection like its query's.
    Promise.resolve()
      .then(() => this.readMany(batch.map((waiting) => waiting.key)))
      .then(
        (values) => {
          for (const [i, waiting] of batch.entries()) waiting.resolve(values[i] as V)
        },
        (error: unknown) => {
          for (const waiting of batch) waiting.reject(error)
        },
      )
      .finally(() => {
        this.inFlight--
        if (this.waiting.length > 0) this.send()
      })
  }
}
