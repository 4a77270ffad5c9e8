import { describe, expect, test } from 'vitest'
import { redisTarget } from '../../src/config/redis-target.js'
import {
  audienceOfChannel,
  ChannelNumbers,
  channelsOf,
  HeardNumbers,
  SESSIONS_CHANNEL,
} from '../../src/realtime/channels.js'

// The channels frames travel on between instances, and the numbering that notices a lost one
// (docs/architecture/real-time-fan-out.md); REDIS_URL's forms.

describe('channels', () => {
  test("a frame goes on each user's channel with that user's part of the audience, sessions on one channel", () => {
    expect(channelsOf({ userIDs: ['1', 'agent:2', '1'], exceptSessionID: 's' })).toEqual([
      ['parley:user:1', { userIDs: ['1'], exceptSessionID: 's' }],
      ['parley:user:agent:2', { userIDs: ['agent:2'], exceptSessionID: 's' }],
    ])
    expect(channelsOf({ sessionIDs: ['a', 'b'] })).toEqual([[SESSIONS_CHANNEL, { sessionIDs: ['a', 'b'] }]])
    expect(audienceOfChannel('parley:user:agent:2')).toEqual({ userIDs: ['agent:2'] })
    expect(audienceOfChannel(SESSIONS_CHANNEL)).toBeUndefined()
  })

  test("a watched case's frame goes on its room's channel, for watchers not reached as users", () => {
    expect(channelsOf({ userIDs: ['agent:2'], watchedRoomIDs: ['9', '9'], exceptSessionID: 's' })).toEqual([
      ['parley:user:agent:2', { userIDs: ['agent:2'], exceptSessionID: 's' }],
      ['parley:watch:9', { watchedRoomIDs: ['9'], exceptUserIDs: ['agent:2'], exceptSessionID: 's' }],
    ])
    expect(channelsOf({ watchedRoomIDs: ['9'] })).toEqual([['parley:watch:9', { watchedRoomIDs: ['9'] }]])
    expect(audienceOfChannel('parley:watch:9')).toEqual({ watchedRoomIDs: ['9'] })
  })

  test('each channel is numbered on its own; a forgotten channel starts again at 1', () => {
    const numbers = new ChannelNumbers(2)
    expect([numbers.next('a'), numbers.next('a'), numbers.next('b'), numbers.current('a')]).toEqual([
      1, 2, 1, 2,
    ])
    numbers.next('c') // the oldest used, a, is forgotten
    expect([numbers.current('a'), numbers.next('a'), numbers.current('b')]).toEqual([0, 1, 0])
  })

  test('a gap, or a notice of a number not heard, is a loss; a new sequence is not', () => {
    const heard = new HeardNumbers()
    expect(heard.record('x', 7, true)).toBe(true) // the first heard, as it comes
    expect(heard.record('x', 8, true)).toBe(true)
    expect(heard.record('x', 8, false)).toBe(true) // a notice of the last number heard
    expect(heard.record('x', 10, true)).toBe(false) // 9 never came
    expect(heard.record('x', 1, true)).toBe(true) // its publisher started again
    expect(heard.record('x', 2, false)).toBe(false) // a notice: 2 was published, and lost
    expect(heard.record('y', 3, false)).toBe(false) // a notice from one never heard
  })
})

describe('REDIS_URL', () => {
  test('one server, or a cluster by its seed nodes', () => {
    expect(redisTarget('redis://127.0.0.1:6379')).toEqual({ kind: 'single', url: 'redis://127.0.0.1:6379' })
    expect(redisTarget('rediss+cluster://:p%40ss@10.0.0.1:7000,[::1]:7001,host')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '::1', port: 7001 },
        { host: 'host', port: 6379 },
      ],
      username: undefined,
      password: 'p@ss',
      tls: true,
    })
    for (const bad of ['http://x', 'redis+cluster://', 'redis+cluster://a:1/db', 'redis+cluster://a:1,'])
      expect(redisTarget(bad), bad).toBeUndefined()
  })
})
