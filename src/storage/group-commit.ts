import { type Kysely, sql } from 'kysely'
import type { Schema } from './schema.js'

interface Job {
  work: (trx: Kysely<Schema>) => Promise<unknown>
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

const MAX_BATCH = 256

/**
 * Group commit for SQLite. Committing is the dearest part of a small write transaction (the
 * write-ahead log is appended and synced per commit), and SQLite has one writer anyway. So
 * transactions that arrive while one is running are run together in the next single transaction,
 * each inside its own savepoint: a failing one rolls back alone and rejects alone, the others commit.
 * Nobody is answered before the commit that holds their work. Work must only touch the database.
 */
export class GroupCommit {
  private pending: Job[] = []
  private draining = false

  constructor(private readonly db: Kysely<Schema>) {}

  run<T>(work: (trx: Kysely<Schema>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject })
      // Start on the next turn of the event loop, so that requests that arrived together (one
      // poll phase) share the commit; the SQLite driver never yields to the loop by itself.
      if (!this.draining) {
        this.draining = true
        setImmediate(() => void this.drain())
      }
    })
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, MAX_BATCH)
      const settle: (() => void)[] = []
      try {
        await this.db.connection().execute(async (connection) => {
          // IMMEDIATE takes the write lock first: with a deferred BEGIN, a commit by another
          // process (the CLI) between this batch's first read and first write would fail every
          // later writer of the batch with "database is locked"; busy_timeout cannot help there.
          await sql`begin immediate`.execute(connection)
          try {
            for (const job of batch) settle.push(await runInSavepoint(connection, job))
            await sql`commit`.execute(connection)
          } catch (error) {
            await sql`rollback`.execute(connection).catch(() => {})
            throw error
          }
        })
        for (const done of settle) done()
      } catch (error) {
        // The commit itself failed: nothing of the batch was saved.
        for (const job of batch) job.reject(error)
      }
    }
    this.draining = false
  }
}

async function runInSavepoint(trx: Kysely<Schema>, job: Job): Promise<() => void> {
  await sql`savepoint job`.execute(trx)
  try {
    const value = await job.work(trx)
    await sql`release job`.execute(trx)
    return () => job.resolve(value)
  } catch (error) {
    await sql`rollback to job`.execute(trx)
    await sql`release job`.execute(trx)
    return () => job.reject(error)
  }
}
