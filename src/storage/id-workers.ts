import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { type Kysely, sql } from 'kysely'
import { AppError } from '../errors/app-error.js'
import { IDGenerator, WORKERS } from '../lib/ids.js'
import { countRows } from './count.js'
import type { Schema } from './schema.js'

// Who issues IDs (lib/ids.ts) with which worker number. An issuer is a database handle (one per
// process: the server, each CLI run; tests also open several in one process): before its first
// ID it leases a worker number that no other holder of the same database has, renews the lease
// while it runs and gives it back when it closes. Uniqueness within a handle is the sequence's;
// between the handles of one database, the worker number's; handles of different databases need
// nothing (their IDs never meet), so a test process running many apps on many databases is fine.
//
// A holder issues only IDs whose time is before its lease's end as the database last confirmed it
// (`until`): when renewals fail (the database is down) until then, it stops issuing (`unavailable`)
// rather than risk issuing as a worker number someone else may take next. Whoever takes a worker
// next starts its IDs at the old lease's end (`floor`), and a holder giving its worker back sets the
// end to just after its last ID: so no clock behind another's, nor time borrowed ahead by a busy
// issuer, can repeat an ID. Lease times are compared on each process's wall clock; clocks that
// disagree only make a lease look expired early or late, never an ID repeat.

/** Lease timings: how long a lease lasts, how often it is renewed, and retried after a failure. */
export interface LeaseTimings {
  leaseMs: number
  renewMs: number
  retryMs: number
}

/**
 * A minute's lease, renewed every 10 s: a killed process's number is free again within a minute,
 * and a database away for up to 50 s costs no ID (requests that write fail anyway meanwhile).
 */
export const LEASE_DEFAULTS: LeaseTimings = { leaseMs: 60_000, renewMs: 10_000, retryMs: 2_000 }

/** Where renewal failures are reported (the app's logger). */
export interface LeaseLog {
  warn(object: object, message: string): void
}

/**
 * Claims the lowest worker number that is free or whose lease has expired, in one statement (two
 * processes trying at once: one gets it, the other gets no row and tries again). Its `floor` is
 * the end of the lease it replaces.
 */
export async function claimWorker(
  db: Kysely<Schema>,
  claim: { holder: string; now: number; expires: number },
): Promise<{ worker: number; floor: number } | undefined> {
  const { holder, now, expires } = claim
  const { rows } = await sql<{ worker: number; floor: number }>`
    with recursive numbers (worker) as (
      select 0 union all select worker + 1 from numbers where worker < ${WORKERS - 1}
    )
    insert into id_worker_leases (worker, holder, expires, floor)
    select worker, ${holder}, cast(${expires} as bigint), 0 from numbers
    where not exists (
      select 1 from id_worker_leases taken where taken.worker = numbers.worker and taken.expires > ${now}
    )
    order by worker
    limit 1
    on conflict (worker) do update
      set holder = excluded.holder, expires = excluded.expires, floor = id_worker_leases.expires
      where id_worker_leases.expires <= ${now}
    returning worker, floor`.execute(db)
  const row = rows[0]
  return row && { worker: Number(row.worker), floor: Number(row.floor) }
}

/** Sets the end of the holder's lease; false when the worker is no longer the holder's. */
async function setExpiry(db: Kysely<Schema>, worker: number, holder: string, expires: number) {
  const result = await db
    .updateTable('id_worker_leases')
    .set({ expires })
    .where('worker', '=', worker)
    .where('holder', '=', holder)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

const leasedCount = (db: Kysely<Schema>, now: number) =>
  countRows(db.selectFrom('id_worker_leases').where('expires', '>', now))

const allTaken = (leaseMs: number) =>
  new AppError(
    'unavailable',
    `No ID worker number is free: all ${WORKERS} are leased by running Parley processes on this ` +
      `database (table id_worker_leases). Stop one; a process that ended without giving its number ` +
      `back frees it within ${Math.ceil(leaseMs / 1000)} seconds.`,
  )

/** The IDs of one database handle, issued under a leased worker number. */
export class LeasedIDs {
  /** This issuer, as the id_worker_leases table names it. */
  readonly holder = `${hostname()} pid ${process.pid} ${randomBytes(3).toString('hex')}`
  private readonly generator = new IDGenerator()
  /** Undefined before the lease, after losing it (until another is leased) and after release. */
  private current: number | undefined
  /** The lease's end as the database last confirmed it: IDs are issued only with times before it. */
  private until = 0
  private leasing: Promise<void> | undefined
  private renewal: Promise<void> = Promise.resolve()
  private timer: NodeJS.Timeout | undefined
  private released = false
  private timings = LEASE_DEFAULTS
  private log: LeaseLog | undefined

  constructor(private readonly db: Kysely<Schema>) {}

  /** The leased worker number, if any. */
  get worker(): number | undefined {
    return this.current
  }

  /**
   * Leases a worker number and keeps renewing it; what a process does before its first ID. Once
   * per handle: later calls get the first one's outcome (and its options); a failed one may be retried.
   */
  lease(options: Partial<LeaseTimings> & { log?: LeaseLog } = {}): Promise<void> {
    if (!this.leasing) {
      const { log, ...timings } = options
      this.timings = { ...LEASE_DEFAULTS, ...timings }
      this.log = log
      this.leasing = this.claim().then(
        () => this.schedule(this.timings.renewMs),
        (error: unknown) => {
          this.leasing = undefined
          throw error
        },
      )
    }
    return this.leasing
  }

  /** A new ID; `unavailable` without a lease, or when the lease ran out before it could be renewed. */
  next(): string {
    const worker = this.current
    const id = worker === undefined ? undefined : this.generator.next(Date.now(), this.until)
    if (id !== undefined) return id
    throw new AppError(
      'unavailable',
      worker === undefined
        ? 'IDs are unavailable: no ID worker number is leased (see LeasedIDs.lease)'
        : `IDs are unavailable: the lease of ID worker ${worker} ran out before the database renewed it`,
    )
  }

  /** Stops renewing and gives the worker number back (best effort: else it expires by itself). */
  async release(): Promise<void> {
    this.released = true
    clearTimeout(this.timer)
    await this.renewal
    await this.leasing?.catch(() => {})
    const worker = this.current
    this.current = undefined
    if (worker === undefined) return
    // The next holder may start where this one stopped, rather than at the lease's end.
    await setExpiry(this.db, worker, this.holder, this.generator.issuedBefore).catch(() => {})
  }

  private async claim(): Promise<void> {
    // No row: every number is taken, or another process took the one this tried (then try again).
    for (let attempt = 0; attempt < WORKERS; attempt++) {
      const now = Date.now()
      const expires = now + this.timings.leaseMs
      const claimed = await claimWorker(this.db, { holder: this.holder, now, expires })
      if (claimed) {
        this.generator.start(claimed.worker, claimed.floor)
        this.current = claimed.worker
        this.until = expires
        return
      }
      if ((await leasedCount(this.db, now)) >= WORKERS) break
    }
    throw allTaken(this.timings.leaseMs)
  }

  private schedule(ms: number): void {
    if (this.released) return
    this.timer = setTimeout(() => {
      this.renewal = this.renew()
    }, ms)
    // A lease never keeps a process alive (the CLI ends when its command is done).
    this.timer.unref()
  }

  private async renew(): Promise<void> {
    if (this.released) return
    let wait = this.timings.renewMs
    try {
      const worker = this.current
      // Never shortened: every ID issued so far must stay before the lease's end.
      const expires = Math.max(Date.now() + this.timings.leaseMs, this.until)
      if (worker !== undefined && (await setExpiry(this.db, worker, this.holder, expires))) {
        this.until = expires
      } else {
        // Lost (it had run out, and another process took it), or lost earlier: lease another.
        if (worker !== undefined) this.log?.warn({ worker }, 'ID worker lease lost to another process')
        this.current = undefined
        await this.claim()
      }
    } catch (error) {
      this.log?.warn(
        { err: error, worker: this.current, until: this.until },
        'ID worker lease not renewed; retrying (no IDs are issued once it runs out)',
      )
      wait = this.timings.retryMs
    }
    this.schedule(wait)
  }
}
