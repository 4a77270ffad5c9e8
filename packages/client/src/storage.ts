// Where the session and the outbox survive a reload: the Web Storage interface (localStorage in
// a browser), or memory where there is none. Values are JSON under `<namespace>:<name>`.

/** The part of the Web Storage API the SDK uses (localStorage fits, and so does a plain object). */
export interface StorageLike {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

/** A storage that lives as long as the page or process. */
export function memoryStorage(): StorageLike {
  const items = new Map<string, string>()
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  }
}

/** localStorage where the platform has it (reading it throws in some sandboxed frames), else memory. */
export function defaultStorage(): StorageLike {
  try {
    const local = (globalThis as { localStorage?: StorageLike }).localStorage
    if (local) return local
  } catch {
    // Storage refused (a sandboxed frame, blocked cookies): fall back to memory.
  }
  return memoryStorage()
}

/** JSON values of one namespace. A value that cannot be read or written counts as absent. */
export class Store {
  constructor(
    private readonly storage: StorageLike,
    private readonly namespace: string,
  ) {}

  read<T>(name: string): T | undefined {
    try {
      const text = this.storage.getItem(`${this.namespace}:${name}`)
      return text === null ? undefined : (JSON.parse(text) as T)
    } catch {
      return undefined
    }
  }

  /** False when the storage refused (full, or gone): the caller keeps the value in memory only. */
  write(name: string, value: unknown): boolean {
    try {
      this.storage.setItem(`${this.namespace}:${name}`, JSON.stringify(value))
      return true
    } catch {
      return false
    }
  }

  remove(name: string): void {
    try {
      this.storage.removeItem(`${this.namespace}:${name}`)
    } catch {
      // Nothing more to do: the value is forgotten in memory either way.
    }
  }
}
