import { execFileSync } from 'node:child_process'
import { expect, test } from 'vitest'

// holdStartUpMemory (lib/start-up-memory.ts), in processes of their own: V8's flags are the
// process's. Each allocates the same survivors while held and again once released, and reports
// the young generation's size before, while held and after; and the heap's size as start-up's
// garbage is left behind and after release.
const SCRIPT = `
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8'
import { holdStartUpMemory } from './dist/lib/start-up-memory.js'
const size = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size
const kept = []
const survivors = () => { for (let i = 0; i < 400_000; i++) kept.push({ i }) }
const before = size()
const held = holdStartUpMemory()
survivors()
const whileHeld = size()
let garbage = []
for (let i = 0; i < 200; i++) garbage.push(new Array(10_000).fill(i))
garbage = null
const heapLeft = getHeapStatistics().total_heap_size
held.release()
const heapReleased = getHeapStatistics().total_heap_size
survivors()
console.log(JSON.stringify({ before, whileHeld, released: size(), heapLeft, heapReleased }))
`

interface Sizes {
  before: number
  whileHeld: number
  released: number
  heapLeft: number
  heapReleased: number
}

function sizes(nodeArgs: string[] = []): Sizes {
  return JSON.parse(
    execFileSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', SCRIPT], { encoding: 'utf8' }),
  )
}

// Unheld, these survivors grow a 1 MB young generation to 16 MB or more (V8 doubles it each time);
// held, V8 still takes its first step (1 to 2 MB, and once, on Node 24 in CI with every core
// busy, to 3.5 MB) and no more.
test('held, survivors leave the young generation near its size; released, they grow it as V8 would', () => {
  const { before, whileHeld, released } = sizes()
  expect(whileHeld).toBeLessThan(4 * before)
  expect(released).toBeGreaterThanOrEqual(4 * whileHeld)
})

test('a command line that sizes the young generation itself is left alone', () => {
  const { before, whileHeld } = sizes(['--max-semi-space-size=16'])
  expect(whileHeld).toBeGreaterThanOrEqual(4 * before)
})

test('released, start-up garbage is collected and its memory given back', () => {
  // 200 arrays of 10,000 small integers: 16 MB, dropped before release.
  const { heapLeft, heapReleased } = sizes()
  expect(heapLeft - heapReleased).toBeGreaterThan(10 * 1024 * 1024)
})
