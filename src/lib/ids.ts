import { randomInt } from 'node:crypto'

// IDs are 64-bit, time-sortable decimal strings (the chat SDK family computes personal room IDs
// from numeric userIDs): 41 bits of milliseconds since EPOCH, 10 bits naming this process, 12 bits
// of sequence. The process bits are random, so instances need no coordination; primary keys catch
// the (negligible) collision of two processes drawing the same bits in the same millisecond.
// The time bits come from the wall clock, not from the injected Clock, on purpose: they only order
// and separate IDs, and must keep increasing whatever a test's clock does; every time that means
// something (created, updated, expiries) comes from the Clock.
const EPOCH = 1_704_067_200_000n // 2024-01-01T00:00:00Z
const SEQUENCE_BITS = 12n
const PROCESS_BITS = 10n
const MAX_SEQUENCE = (1n << SEQUENCE_BITS) - 1n

const processBits = BigInt(randomInt(1 << Number(PROCESS_BITS)))
let lastMs = 0n
let sequence = 0n

export function newID(): string {
  let ms = BigInt(Date.now())
  if (ms <= lastMs) {
    // Same millisecond (or the wall clock stepped back): keep counting on the last one.
    ms = lastMs
    sequence += 1n
    if (sequence > MAX_SEQUENCE) {
      ms += 1n
      sequence = 0n
    }
  } else {
    sequence = 0n
  }
  lastMs = ms
  return (
    ((ms - EPOCH) << (PROCESS_BITS + SEQUENCE_BITS)) |
    (processBits << SEQUENCE_BITS) |
    sequence
  ).toString()
}
