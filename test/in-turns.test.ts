import { expect, test } from 'vitest'
import { eachInTurns } from '../src/lib/in-turns.js'

// A round over many things (a ping to every socket, realtime/gateway.ts) lets the event loop turn
// between chunks, so what arrives meanwhile is not held until the round ends.

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
