import { execFileSync } from 'node:child_process'
import { expect, test } from 'vitest'

// holdYoungGeneration (lib/young-generation.ts), in processes of their own: V8's flags are the
// process's. Each allocates the same survivors while held and again once released, and reports
// the young generation's size before, while held and after.
const SCRIPT = `
import { getHeapSpaceStatistics } from 'node:v8'
import { holdYoungGeneration } from './dist/lib/young-generation.js'
const size = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size
const kept = []
const survivors = () => { for (let i = 0; i < 400_000; i++) kept.push({ i }) }
const before = size()
const held = holdYoungGeneration()
survivors()
const whileHeld = size()
held.release()
survivors()
console.log(JSON.stringify({ before, whileHeld, released: size() }))
`

function sizes(nodeArgs: string[] = []): { before: number; whileHeld: number; released: number } {
  return JSON.parse(
    execFileSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', SCRIPT], { encoding: 'utf8' }),
  )
}

// Unheld, these survivors grow a 1 MB young generation to 16 MB or more (V8 doubles it each time);
// held, V8 still takes its one first step (1 to 2 MB) and no more.
test('held, survivors leave the young generation near its size; released, they grow it as V8 would', () => {
  const { before, whileHeld, released } = sizes()
  expect(whileHeld).toBeLessThanOrEqual(2 * before)
  expect(released).toBeGreaterThanOrEqual(4 * whileHeld)
})

test('a command line that sizes the young generation itself is left alone', () => {
  const { before, whileHeld } = sizes(['--max-semi-space-size=16'])
  expect(whileHeld).toBeGreaterThanOrEqual(4 * before)
})
