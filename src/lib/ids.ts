// IDs are time-sortable decimal strings of at most 2^53 − 1 (Number.MAX_SAFE_INTEGER): the chat
// SDK family computes personal room IDs from numeric userIDs, and its JavaScript clients parse them
// as numbers, which are exact only up to there (docs/reference/client-api.md). 53 bits: 41 of milliseconds since EPOCH
// (2026-01-01, enough until 2095), 9 naming the worker (512 processes per database), 3 of sequence:
// 8 IDs per millisecond per worker (8,000 a second; a busy instance issues a few thousand), the 9th
// borrows the next millisecond. With so few bits nothing can be left to chance: the
// worker number is leased from the database (storage/id-workers.ts), so no two issuers of one
// database share it, and a worker's next holder starts after the last millisecond its previous
// holder could have used (`floor`), so a clock behind another, or time borrowed ahead, repeats
// nothing either.
// The time bits come from the wall clock, not from the injected Clock, on purpose: they only order
// and separate IDs, and must keep increasing whatever a test's clock does; every time that means
// something (created, updated, expiries) comes from the Clock.
//
// IDs issued before this format (64 bits: 41 of ms since 2024, 10 random, 12 of sequence; 18 digits)
// stay valid, as text. They are all above 2^53 (any issued after 2024-01-25 is), so none equals a new
// one; but neither text order (the lengths differ) nor numeric order (the old ones are larger)
// follows time across the two formats, nor text order within the new one once IDs grow from 15 to
// 16 digits (2033): lists are ordered by `created`, an ID only breaks ties.
export const ID_EPOCH = Date.UTC(2026, 0, 1)
const TIME_BITS = 41
const WORKER_BITS = 9
const SEQUENCE_BITS = 3
/** How many issuers one database can have at once. */
export const WORKERS = 2 ** WORKER_BITS
const SEQUENCES = 2 ** SEQUENCE_BITS
/** The last millisecond an ID can hold (the largest ID is 2^53 − 1). */
export const LAST_ID_MS = ID_EPOCH + 2 ** TIME_BITS - 1

/**
 * The ID of a time, worker and sequence (plain arithmetic: every value is below 2^53). The time
 * is the top 41 bits as it was when 6 bits named the worker and 6 counted (0026_id_worker_leases
 * gives each old number's lease to the 8 new numbers that share its bits), so IDs keep their order.
 */
export const composeID = (ms: number, worker: number, sequence: number): number =>
  (ms - ID_EPOCH) * WORKERS * SEQUENCES + worker * SEQUENCES + sequence

/** Issues IDs as one worker; what may be issued when (the lease) is the caller's to decide. */
export class IDGenerator {
  private worker = 0
  private lastMs = 0
  private sequence = SEQUENCES - 1

  /**
   * Issues as `worker` from now on, at times from `floor` on (where the worker's previous holder
   * stopped) and after any this generator used before (IDs of one generator keep increasing).
   */
  start(worker: number, floor: number): void {
    if (!Number.isInteger(worker) || worker < 0 || worker >= WORKERS)
      throw new RangeError(`no worker ${worker}`)
    this.worker = worker
    this.lastMs = Math.max(this.lastMs, floor - 1)
    this.sequence = SEQUENCES - 1
  }

  /** Every ID issued so far has a time before this (and the next one will not). */
  get issuedBefore(): number {
    return this.lastMs + 1
  }

  /** The next ID, unless its time would reach `before`: then undefined, and nothing is used up. */
  next(now: number, before: number): string | undefined {
    let ms = now
    let sequence = 0
    if (ms <= this.lastMs) {
      // Same millisecond (or the wall clock stepped back): keep counting on the last one.
      ms = this.lastMs
      sequence = this.sequence + 1
      if (sequence === SEQUENCES) {
        ms += 1
        sequence = 0
      }
    }
    if (ms >= before) return undefined
    if (ms < ID_EPOCH || ms > LAST_ID_MS) {
      throw new RangeError(`the clock (${new Date(ms).toISOString()}) is outside what IDs can hold`)
    }
    this.lastMs = ms
    this.sequence = sequence
    return String(composeID(ms, this.worker, sequence))
  }
}
