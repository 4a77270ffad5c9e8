import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { type Event, INT_NULL, packDay, unpackDay } from '../../src/domain/reports/day-events.js'
import { median } from '../../src/domain/reports/medians.js'

// The parts of reports from stored days that need no database (docs/reference/agent-api.md, "Reports"): a day's events
// come back from their packed bytes as they went in, whatever their values (beyond 32 bits too) and
// however many topic/agent pairs a day has (over 256 and over 65,536); and the medians selected
// are those of sorting.

const DAY = 86_400_000
const START = Date.UTC(2026, 2, 29)

/** A day's events as comparable rows, per kind in order. */
const rowsOf = (events: readonly Event[]) =>
  [0, 1, 2, 3].map((kind) =>
    events
      .filter((event) => event.kind === kind)
      .map((event) => [event.time, event.topic, event.agent, event.value ?? null]),
  )

function unpacked(events: readonly Event[]) {
  const day = unpackDay(START, packDay(START, events))
  if (!day) throw new Error('a day packed now is unpacked')
  return [0, 1, 2, 3].map((kind) =>
    Array.from(day.times[kind] as Uint32Array, (time, i) => {
      const pair = (day.pairs[kind] as Uint8Array)[i] as number
      const raw = day.values[kind]?.[i]
      const value = raw === undefined || raw === day.none || Number.isNaN(raw) ? null : raw
      return [START + time, day.topics[pair], day.agents[pair], value]
    }),
  )
}

const event = (values: fc.Arbitrary<number>, topics: fc.Arbitrary<number>) =>
  fc
    .record({
      kind: fc.integer({ min: 0, max: 3 }),
      time: fc.integer({ min: START, max: START + DAY - 1 }),
      topic: topics,
      agent: fc.option(fc.constantFrom('a', 'b', 'agent-ß', ''), { nil: null }),
      value: fc.option(values, { nil: null }),
    })
    // Opened events have no value; only a handover may lack one (not answered yet).
    .map(
      (e): Event => ({
        ...e,
        value: e.kind === 0 ? null : e.kind === 1 ? e.value : (e.value ?? 7),
      }),
    )

describe('a day of events, packed', () => {
  test('unpacks to the same events, 32-bit values or not', () => {
    const values = fc.oneof(
      fc.integer({ min: INT_NULL + 1, max: 2 ** 31 - 1 }),
      fc.integer({ min: -(2 ** 40), max: 2 ** 40 }),
      fc.constant(INT_NULL),
    )
    fc.assert(
      fc.property(
        fc.array(event(values, fc.integer({ min: 1, max: 2 ** 31 - 1 })), { maxLength: 300 }),
        (events) => {
          expect(unpacked(events)).toEqual(rowsOf(events))
        },
      ),
    )
  })

  test('unpacks to the same events with more than 256 and more than 65,536 topic/agent pairs', () => {
    for (const count of [300, 70_000]) {
      const events = Array.from(
        { length: count },
        (_, i): Event => ({
          kind: i % 4,
          time: START + i,
          topic: i + 1,
          agent: 'a',
          value: i % 4 === 0 ? null : i,
        }),
      )
      expect(unpacked(events)).toEqual(rowsOf(events))
    }
  })

  test('of another format is not read', () => {
    const bytes = packDay(START, [])
    bytes.writeUInt32LE(99, 0)
    expect(unpackDay(START, bytes)).toBeUndefined()
  })
})

describe('a median', () => {
  const sorted = (values: number[]) => {
    if (values.length === 0) return null
    const s = [...values].sort((a, b) => a - b)
    const n = s.length
    return ((s[Math.floor((n + 1) / 2) - 1] as number) + (s[Math.floor((n + 2) / 2) - 1] as number)) / 2
  }

  test('is the middle value, or the mean of the middle two, as sorting finds them', () => {
    const values = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.integer({ min: -(2 ** 40), max: 2 ** 40 }))
    fc.assert(
      fc.property(fc.array(values, { maxLength: 500 }), (list) => {
        expect(median(Float64Array.from(list))).toBe(sorted(list))
      }),
      { numRuns: 500 },
    )
  })

  test('of many equal, sorted or reversed values takes no time to find', () => {
    const n = 200_001
    for (const list of [
      new Float64Array(n).fill(3),
      Float64Array.from({ length: n }, (_, i) => i),
      Float64Array.from({ length: n }, (_, i) => n - i),
    ])
      expect(median(list)).toBe(sorted(Array.from(list)))
  })
})
