// A small typed event emitter: `on` returns the function that removes the listener. A listener
// that throws does not stop the others, nor the SDK's own work: its error is thrown again later,
// outside the SDK's call stack, where the platform reports uncaught errors.

type Listeners<Events extends Record<string, unknown[]>> = {
  [E in keyof Events]?: Set<(...args: Events[E]) => void>
}

export class Emitter<Events extends Record<string, unknown[]>> {
  private readonly listeners: Listeners<Events> = {}

  on<E extends keyof Events>(event: E, listener: (...args: Events[E]) => void): () => void {
    const set = this.listeners[event] ?? new Set()
    this.listeners[event] = set
    set.add(listener)
    return () => {
      set.delete(listener)
    }
  }

  emit<E extends keyof Events>(event: E, ...args: Events[E]): void {
    for (const listener of [...(this.listeners[event] ?? [])]) {
      try {
        listener(...args)
      } catch (error) {
        queueMicrotask(() => {
          throw error
        })
      }
    }
  }
}
