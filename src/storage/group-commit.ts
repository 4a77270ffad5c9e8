import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  SingleConnectionProvider,
} from 'kysely'
import type { CommitHooks } from './commit-hooks.js'
import type { Schema } from './schema.js'
import type { InsideWork } from './transaction-guards.js'

interface Job {
  work: (trx: Kysely<Schema>) => Promise<unknown>
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

const MAX_BATCH = 256
/**
 * A batch that starts within BUSY_MS of a commit of several jobs waits GATHER_MS to gather more
 * work (transactions that come one after another, as one client's do, are not held back).
 */
const BUSY_MS = 5
const GATHER_MS = 1

export const WAITED_OUTSIDE =
  "a transaction's work waited on something other than its own queries (the network, a timer, " +
  'another transaction, a query on database.db): on SQLite every writer waits with it, so it was ' +
  'rolled back; do that before or after the transaction'

export const WORK_OVER = "a query on a transaction's trx after its work was over: nothing ran"

/** A job's trx begins, ends and destroys nothing: the batch around it does. */
const NO_DRIVER = new Proxy({} as Driver, {
  get: () => () => Promise.reject(new Error("a transaction's work cannot begin, end or destroy one")),
})

/**
 * Group commit for SQLite. Committing is the dearest part of a small write transaction (the
 * write-ahead log is appended and synced per commit), and SQLite has one writer anyway. So
 * transactions that arrive while one is running are run together in the next single transaction,
 * each inside its own savepoint: a failing one rolls back alone and rejects alone, the others commit.
 * Nobody is answered before the commit that holds their work.
 *
 * Work must only touch the database, through its trx. SQLite's queries are synchronous, so such
 * work settles before the event loop turns again; work still pending then is waiting for something
 * else, while holding every writer: it is rolled back and rejected at once (WAITED_OUTSIDE), and
 * its trx refuses whatever it tries later (WORK_OVER). Each batch runs in a turn of the event loop
 * of its own, so that while a work runs, nothing else does but what it calls (see insideWork).
 */
export class GroupCommit {
  private pending: Job[] = []
  private draining = false
  private working = false
  private lastCommit = Number.NEGATIVE_INFINITY
  private lastBatchSize = 0

  constructor(
    private readonly db: Kysely<Schema>,
    private readonly dialect: Dialect,
    private readonly hooks: CommitHooks,
  ) {}

  /**
   * True while a job's work runs: then the code running is the work or what it called. (Only
   * while a work waits, against the rule, until the next turn can other code run meanwhile.)
   */
  readonly insideWork: InsideWork = () => this.working

  run<T>(work: (trx: Kysely<Schema>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject })
      if (!this.draining) {
        this.draining = true
        this.schedule()
      }
    })
  }

  /** Runs one batch; the next, if any, on the next turn (where it is joined by what arrives). */
  private async drain(): Promise<void> {
    const batch = this.pending.splice(0, MAX_BATCH)
    const settle: (() => void)[] = []
    try {
      await this.db.getExecutor().provideConnection(async (connection) => {
        // BEGIN IMMEDIATE takes the write lock first: with a deferred BEGIN, a commit by another
        // process (the CLI) between this batch's first read and first write would fail every
        // later writer of the batch with "database is locked"; busy_timeout cannot help there.
        await execute(connection, 'begin')
        try {
          for (const job of batch) settle.push(await this.runInSavepoint(connection, job))
          await execute(connection, 'commit')
        } catch (error) {
          await execute(connection, 'rollback').catch(() => {})
          throw error
        }
      })
      for (const done of settle) done()
    } catch (error) {
      // The commit itself failed: nothing of the batch was saved.
      for (const job of batch) job.reject(error)
    }
    this.lastCommit = performance.now()
    this.lastBatchSize = batch.length
    if (this.pending.length > 0) this.schedule()
    else this.draining = false
  }

  /**
   * Starts a batch on the next turn of the event loop, so that requests that arrived together (one
   * poll phase) share the commit; the SQLite driver never yields to the loop by itself. Under load
   * (the last commit held several), a millisecond later: a commit writes every page its batch changed, and consecutive messages
   * change the same pages (their room's row, the ends of the indexes), so a larger batch costs
   * little more than a small one.
   */
  private schedule(): void {
    const busy = this.lastBatchSize > 1 && performance.now() - this.lastCommit < BUSY_MS
    if (busy) setTimeout(() => void this.drain(), GATHER_MS)
    else setImmediate(() => void this.drain())
  }

  private async runInSavepoint(connection: DatabaseConnection, job: Job): Promise<() => void> {
    await execute(connection, 'savepoint')
    const { trx, close } = this.jobHandle(connection)
    this.hooks.begin(trx)
    this.working = true
    try {
      const value = await beforeNextTurn(() => job.work(trx)).finally(() => {
        this.working = false
        close()
      })
      await execute(connection, 'release')
      return () => {
        job.resolve(value)
        this.hooks.committed(trx)
      }
    } catch (error) {
      await execute(connection, 'rollbackToSavepoint')
      await execute(connection, 'release')
      return () => job.reject(error)
    }
  }

  /** A trx on the batch's connection for one job, refusing every query once `close` is called. */
  private jobHandle(connection: DatabaseConnection): { trx: Kysely<Schema>; close: () => void } {
    let open = true
    const single = new SingleConnectionProvider(connection)
    const executor = this.db.getExecutor().withConnectionProvider({
      provideConnection: (consumer) =>
        open ? single.provideConnection(consumer) : Promise.reject(new Error(WORK_OVER)),
    })
    const { dialect } = this
    const trx = new Kysely<Schema>({ config: { dialect }, dialect, driver: NO_DRIVER, executor })
    const close = () => {
      open = false
    }
    return { trx, close }
  }
}

/** The batch's and its jobs' statements, compiled once: a job runs two of them. */
const STATEMENTS = {
  begin: CompiledQuery.raw('begin immediate'),
  commit: CompiledQuery.raw('commit'),
  rollback: CompiledQuery.raw('rollback'),
  savepoint: CompiledQuery.raw('savepoint job'),
  release: CompiledQuery.raw('release job'),
  rollbackToSavepoint: CompiledQuery.raw('rollback to job'),
}

const execute = (connection: DatabaseConnection, statement: keyof typeof STATEMENTS) =>
  connection.executeQuery(STATEMENTS[statement])

/** The work's outcome, or WAITED_OUTSIDE if it is still pending when the event loop turns. */
function beforeNextTurn<T>(work: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const turned = setImmediate(() => reject(new Error(WAITED_OUTSIDE)))
    work()
      .then(resolve, reject)
      .finally(() => clearImmediate(turned))
  })
}
