// How failures of what Parley depends on are told apart. A database that restarts, fails over or
// is briefly locked by another process, or a Redis that is away, is weather: the request that met
// it is answered 503 (try again), and the process carries on. Only what is neither is a bug (500).

/** Node's socket errors, and pg's and ioredis' own words for a connection that broke or never came. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
])
const BROKEN_CONNECTION = [
  'Connection terminated',
  'Client has encountered a connection error',
  'is not queryable',
  'timeout exceeded when trying to connect',
  'Connection is closed',
  'Reached the max retries per request limit',
]

/**
 * PostgreSQL SQLSTATEs of an outage: class 08 (connection exception; also what pgbouncer answers
 * for its own refusals: `no more connections allowed`, `query_wait_timeout`, a server it cannot
 * reach), 53300 (too many connections), 57P01–57P03 (shut down by an administrator, crashed, still
 * starting), and 26000 and 42P05 (a named statement unknown, or already there, on the connection):
 * Parley names a statement only once per connection, so those mean a pooler in transaction mode
 * handed it another server connection (docs/operations/postgresql-and-redis.md, PG_NAMED_STATEMENTS).
 */
const isOutageState = (state: string) =>
  state.startsWith('08') || OUTAGE_STATES.has(state) || /^57P0[123]$/.test(state)
const OUTAGE_STATES = new Set(['53300', '26000', '42P05'])

/** A store of Parley's (S3-compatible storage) is away or overloaded for now: answered 503. */
export class StoreUnavailable extends Error {
  constructor(cause: unknown) {
    super(`storage unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.name = 'StoreUnavailable'
  }
}

/** True when the database or a store is away or busy for now: the same request may well succeed later. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof StoreUnavailable) return true
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string') {
    // better-sqlite3: another process held the write lock longer than busy_timeout.
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return true
    if (NETWORK_CODES.has(code) || isOutageState(code)) return true
  }
  return BROKEN_CONNECTION.some((words) => error.message.includes(words))
}

/** What logFailure writes to (a pino logger is one). */
export interface FailureLog {
  warn(details: object, message: string): void
  error(details: object, message: string): void
}

/**
 * Logs a failure of work the process does by itself (a round, a recording): a warning when it met
 * an outage, which the next round retries; an error otherwise, as that is a bug.
 */
export function logFailure(log: FailureLog, error: unknown, message: string, details: object = {}): void {
  if (isUnavailable(error)) log.warn({ ...details, err: error }, message)
  else log.error({ ...details, err: error }, message)
}

/**
 * True when a PostgreSQL transaction lost only to another one (serialization failure 40001,
 * deadlock 40P01): it changed nothing and may simply run again.
 */
export function isRetryableConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  return code === '40001' || code === '40P01'
}

/** PostgreSQL's unique_violation; better-sqlite3's codes for a unique index and a primary key. */
const UNIQUE_VIOLATIONS: ReadonlySet<unknown> = new Set([
  '23505',
  'SQLITE_CONSTRAINT_UNIQUE',
  'SQLITE_CONSTRAINT_PRIMARYKEY',
])

/** True when a write lost to a unique index or primary key: another row holds the value. */
export const isUniqueViolation = (error: unknown): boolean =>
  UNIQUE_VIOLATIONS.has((error as { code?: unknown } | undefined)?.code)

/** Runs `attempt` again (up to `times` in all) while it fails with a retryable conflict. */
export async function retryConflicts<T>(attempt: () => Promise<T>, times = 4): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt()
    } catch (error) {
      if (tries >= times || !isRetryableConflict(error)) throw error
      // A short, spread-out pause so the two losers of a deadlock do not meet again at once.
      await new Promise((resolve) => setTimeout(resolve, 5 * tries * Math.random()))
    }
  }
}
