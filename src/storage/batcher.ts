interface Waiting<K, V> {
  key: K
  resolve(value: V): void
  reject(error: unknown): void
}

/**
 * Queries of one kind (room reads, message sends), many to a round trip when the database is busy:
 * one goes out at once while fewer than `maxInFlight` of its kind are on their way; one that
 * arrives while they are waits for the first of them to come back and goes out with every other
 * that waited, in one statement. So an idle server answers as fast as before, and a busy one makes
 * a round trip (and, for a write, a commit) per batch instead of per query: on PostgreSQL it is the
 * round trip (a write to the server's socket and its wake-up) and the commit's flush that cost
 * most, not the lookup or the insert.
 *
 * Each query still starts after it was asked for (a batch goes out only after its last query
 * joined), so it sees every write committed before: batching costs no freshness, and one client's
 * queries, asked one after the other, run in that order. A failed batch fails each query in it, as
 * each alone would have failed.
 */
export class Batcher<K, V> {
  private readonly waiting: Waiting<K, V>[] = []
  private inFlight = 0

  constructor(
    /** The values for these keys, in their order, in one statement. */
    private readonly runMany: (keys: K[]) => Promise<V[]>,
    private readonly maxInFlight = 2,
    /** The most keys in one statement; the rest go in the next (a backlog after a stall, say). */
    private readonly maxBatch = Number.POSITIVE_INFINITY,
  ) {}

  run(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      this.waiting.push({ key, resolve, reject })
      if (this.inFlight < this.maxInFlight) this.send()
    })
  }

  private send(): void {
    const batch = this.waiting.splice(0, this.maxBatch)
    this.inFlight++
    // runMany's own throw becomes a rejection like its statement's.
    Promise.resolve()
      .then(() => this.runMany(batch.map((waiting) => waiting.key)))
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
