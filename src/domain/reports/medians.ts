// Exact medians of durations, by selection (Hoare's partition; expected linear time) rather than a
// full sort: a year's durations are some hundreds of thousands.

/** The median: the middle value, or the mean of the middle two; null for none. Reorders `values`. */
export function median(values: Float64Array): number | null {
  const n = values.length
  if (n === 0) return null
  const lower = Math.floor((n + 1) / 2) - 1
  select(values, lower)
  if (n % 2 === 1) return values[lower] as number
  // Everything after `lower` is at least as large: the upper middle is the least of them.
  let upper = Number.POSITIVE_INFINITY
  for (let i = lower + 1; i < n; i++) if ((values[i] as number) < upper) upper = values[i] as number
  return ((values[lower] as number) + upper) / 2
}

/** Reorders `a` so that a[k] is its k-th smallest (0-based), none before it larger, none after smaller. */
function select(a: Float64Array, k: number): void {
  let [left, right] = [0, a.length - 1]
  while (left < right) {
    // The median of three as the pivot: sorted or reversed input stays linear.
    const middle = (left + right) >> 1
    const pivot = medianOf3(a[left] as number, a[middle] as number, a[right] as number)
    let [i, j] = [left, right]
    while (i <= j) {
      while ((a[i] as number) < pivot) i++
      while ((a[j] as number) > pivot) j--
      if (i <= j) {
        const swap = a[i] as number
        a[i] = a[j] as number
        a[j] = swap
        i++
        j--
      }
    }
    // Now a[left..j] ≤ pivot ≤ a[i..right], and a[j+1..i-1] (if any) equal the pivot.
    if (k <= j) right = j
    else if (k >= i) left = i
    else return
  }
}

const medianOf3 = (a: number, b: number, c: number) =>
  a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b
