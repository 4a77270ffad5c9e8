import type { Clock } from './clock.js'

interface Entry<V> {
  loadedAt: number
  value: Promise<V>
  /** The value, once loaded. */
  loaded?: { value: V }
}

/**
 * A small read-through cache for facts other processes may change (a revoked key, a revoked
 * session): a value is trusted for `ttlMs` of clock time, concurrent misses share one load, a
 * failed load is forgotten, and the oldest entry goes when `maxSize` is reached.
 */
export class TTLCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>()

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly load: (key: K) => Promise<V>,
    private readonly maxSize = 10_000,
  ) {}

  get(key: K): Promise<V> {
    const now = this.clock.now()
    const cached = this.entries.get(key)
    if (cached && now - cached.loadedAt < this.ttlMs) return cached.value
    const value = this.load(key)
    this.entries.delete(key)
    if (this.entries.size >= this.maxSize) this.entries.delete(this.entries.keys().next().value as K)
    const entry: Entry<V> = { loadedAt: now, value }
    this.entries.set(key, entry)
    value.then(
      (loaded) => {
        entry.loaded = { value: loaded }
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key)
      },
    )
    return value
  }

  /** The value if one is loaded and still trusted, without loading it (for code that may not wait). */
  peek(key: K): V | undefined {
    const cached = this.entries.get(key)
    if (!cached || this.clock.now() - cached.loadedAt >= this.ttlMs) return undefined
    return cached.loaded?.value
  }

  /** Forgets a key this process just changed. */
  delete(key: K): void {
    this.entries.delete(key)
  }
}
