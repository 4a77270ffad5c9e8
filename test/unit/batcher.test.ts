import { expect, test } from 'vitest'
import { Batcher } from '../../src/storage/batcher.js'

// Batcher alone, with a reader that answers when told to: which reads go out together.

/** A reader whose batches wait until released, recording each batch's keys. */
function heldReader(maxInFlight = 2, maxBatch?: number) {
  const batches: number[][] = []
  const releases: (() => void)[] = []
  const reads = new Batcher<number, string>(
    async (keys) => {
      batches.push(keys)
      await new Promise<void>((resolve) => releases.push(resolve))
      if (keys.includes(-1)) throw new Error('the database went away')
      return keys.map((key) => `value of ${key}`)
    },
    maxInFlight,
    maxBatch,
  )
  const release = async (i: number) => {
    while (!releases[i]) await new Promise((resolve) => setImmediate(resolve))
    releases[i]?.()
  }
  return { reads, batches, release }
}

test('reads go out at once while fewer than the limit are out, later ones together after', async () => {
  const { reads, batches, release } = heldReader()
  const answers = [1, 2, 3, 4, 5].map((key) => reads.run(key))
  await release(0)
  expect(await answers[0]).toBe('value of 1')
  await release(1)
  await release(2)
  expect(await Promise.all(answers)).toEqual([1, 2, 3, 4, 5].map((key) => `value of ${key}`))
  expect(batches).toEqual([[1], [2], [3, 4, 5]])
})

test('a failed batch fails each read in it, and later reads go out as before', async () => {
  const { reads, batches, release } = heldReader()
  const first = reads.run(1)
  const second = reads.run(2)
  const failing = [reads.run(-1), reads.run(3)]
  await release(0)
  await release(1)
  await release(2)
  for (const read of failing) await expect(read).rejects.toThrow('the database went away')
  expect([await first, await second]).toEqual(['value of 1', 'value of 2'])
  const after = reads.run(4)
  await release(3)
  expect(await after).toBe('value of 4')
  expect(batches).toEqual([[1], [2], [-1, 3], [4]])
})

test('a reader that throws before its query fails the batch, not the process', async () => {
  const reads = new Batcher<number, number>(() => {
    throw new Error('no query')
  })
  await expect(reads.run(1)).rejects.toThrow('no query')
  await expect(reads.run(2)).rejects.toThrow('no query')
})

test('a batch takes at most its limit of keys; the others go in the next, in order', async () => {
  const { reads, batches, release } = heldReader(1, 2)
  const answers = [1, 2, 3, 4, 5, 6].map((key) => reads.run(key))
  for (let i = 0; i < 4; i++) await release(i)
  expect(await Promise.all(answers)).toEqual([1, 2, 3, 4, 5, 6].map((key) => `value of ${key}`))
  expect(batches).toEqual([[1], [2, 3], [4, 5], [6]])
})
