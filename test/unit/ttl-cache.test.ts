import { expect, test } from 'vitest'
import { ManualClock } from '../../src/lib/clock.js'
import { TTLCache } from '../../src/lib/ttl-cache.js'

// The read-through cache behind revoked keys, chatbots and event subscriptions (lib/ttl-cache.ts).

function counting() {
  const clock = new ManualClock()
  const loads: string[] = []
  const cache = new TTLCache(clock, 1000, async (key: string) => {
    loads.push(key)
    return `${key}:${loads.length}`
  })
  return { clock, loads, cache }
}

test('a value is loaded once while trusted, and again once its time is up', async () => {
  const { clock, loads, cache } = counting()
  expect(await Promise.all([cache.get('a'), cache.get('a')])).toEqual(['a:1', 'a:1'])
  clock.advance(999)
  expect(await cache.get('a')).toBe('a:1')
  clock.advance(1)
  expect(await cache.get('a')).toBe('a:2')
  expect(loads).toEqual(['a', 'a'])
})

test('peek gives a loaded value while it is trusted, and never loads', async () => {
  const { clock, loads, cache } = counting()
  expect(cache.peek('a')).toBeUndefined()
  const loading = cache.get('a')
  // Asked for, not loaded yet.
  expect(cache.peek('a')).toBeUndefined()
  await loading
  expect(cache.peek('a')).toBe('a:1')
  cache.delete('a')
  expect(cache.peek('a')).toBeUndefined()
  await cache.get('a')
  clock.advance(1000)
  expect(cache.peek('a')).toBeUndefined()
  expect(loads).toEqual(['a', 'a'])
})

test('a failed load is forgotten: the next get tries again, and peek has nothing', async () => {
  const clock = new ManualClock()
  let fail = true
  const cache = new TTLCache(clock, 1000, async () => {
    if (fail) throw new Error('away')
    return 'back'
  })
  await expect(cache.get('a')).rejects.toThrow('away')
  expect(cache.peek('a')).toBeUndefined()
  fail = false
  expect(await cache.get('a')).toBe('back')
})
