/**
 * Runs `work` on each item, `size` items to a turn of the event loop. A round over thousands of
 * things (a ping to every socket) then never holds the loop for long: what arrives meanwhile (a
 * message, its delivery) is served between turns instead of after the whole round.
 */
export async function eachInTurns<T>(
  items: readonly T[],
  size: number,
  work: (item: T) => void,
): Promise<void> {
  for (let start = 0; start < items.length; start += size) {
    if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve))
    for (let i = start; i < Math.min(start + size, items.length); i++) work(items[i] as T)
  }
}
