import { expect, test } from 'vitest'
import { eachInTurns } from '../../src/lib/in-turns.js'
import { pingSliceSize } from '../../src/realtime/ping-rounds.js'

// A round over many things (a ping to every socket, realtime/ping-rounds.ts) lets the event loop
// turn between chunks, so what arrives meanwhile is not held until the round ends.

test('each item is worked on once, in order, a chunk per turn, and other work runs between chunks', async () => {
  const seen: string[] = []
  const round = eachInTurns([1, 2, 3, 4, 5], 2, (item) => seen.push(`item ${item}`))
  // Work that arrived while the round went on runs before its last chunk, not after it.
  setImmediate(() => seen.push('between'))
  expect(seen).toEqual(['item 1', 'item 2'])
  await round
  expect(seen.filter((entry) => entry !== 'between')).toEqual([1, 2, 3, 4, 5].map((n) => `item ${n}`))
  expect(seen.indexOf('between')).toBeLessThan(seen.indexOf('item 5'))
})

test('nothing to do is done at once', async () => {
  const seen: number[] = []
  await eachInTurns([], 3, (item: number) => seen.push(item))
  expect(seen).toEqual([])
})

test('between slices the round waits for its pause (a ping round: a timer), once per slice', async () => {
  const seen: string[] = []
  let release: () => void = () => {}
  const pause = () => {
    seen.push('pause')
    return new Promise<void>((resolve) => {
      release = resolve
    })
  }
  const round = eachInTurns([1, 2, 3], 2, (item) => seen.push(`item ${item}`), pause)
  await new Promise((resolve) => setImmediate(resolve))
  // Nothing more is done until the pause is over, however many turns go by.
  expect(seen).toEqual(['item 1', 'item 2', 'pause'])
  release()
  await round
  expect(seen).toEqual(['item 1', 'item 2', 'pause', 'item 3'])
})

test('a ping round pings 250 sockets a slice, 25 ms apart, unless that would outlast a fifth of the interval', () => {
  // 25 s between rounds: up to 200 slices, so 10,000 sockets take 40 slices (a second)...
  expect(pingSliceSize(10_000, 25_000)).toBe(250)
  // ...and a million, 200 slices of 5,000 (five seconds).
  expect(pingSliceSize(1_000_000, 25_000)).toBe(5_000)
  // Rounds 100 ms apart (tests): every socket in one slice.
  expect(pingSliceSize(300, 100)).toBe(300)
})
