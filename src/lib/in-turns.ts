/** The next turn of the event loop: what arrived meanwhile (I/O, timers) runs first. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Runs `work` on each item, `size` items at a time, awaiting `pause` (by default, the next turn of
 * the event loop) between slices. A round over thousands of things (a ping to every socket) then
 * never holds the loop for long: what arrives meanwhile (a message, its delivery) is served
 * between slices instead of after the whole round.
 */
export async function eachInTurns<T>(
  items: readonly T[],
  size: number,
  work: (item: T) => void,
  pause: () => Promise<void> = nextTurn,
): Promise<void> {
  for (let start = 0; start < items.length; start += size) {
    if (start > 0) await pause()
    for (let i = start; i < Math.min(start + size, items.length); i++) work(items[i] as T)
  }
}
