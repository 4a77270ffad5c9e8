import { AsyncLocalStorage } from 'node:async_hooks'
import type { Dialect, Kysely } from 'kysely'
import type { Schema } from './schema.js'

// A transaction's work must do its database work through its own `trx`, and nothing else. On
// SQLite the group commit runs the work of many callers on one connection, one after the other,
// holding the only write lock: a transaction opened inside the work, or a query on `database.db`,
// waits for the very batch that waits for it, and every writer of the process waits with them.
// On PostgreSQL both would quietly take a second pooled connection and run outside the
// transaction. Either mistake fails here at once, with the same error on both databases.

type Work<T> = (trx: Kysely<Schema>) => Promise<T>
export type Transaction = <T>(work: Work<T>) => Promise<T>

/** True while the code running now is (called from) a transaction's work. */
export type InsideWork = () => boolean

export const NESTED_TRANSACTION =
  "database.transaction was called inside a transaction's work: a transaction cannot hold another " +
  '(on SQLite it would wait for itself forever); pass the outer trx down instead'

export const QUERY_BESIDE_TRX =
  "a query on database.db inside a transaction's work: query through the work's trx " +
  '(on SQLite database.db waits for the transaction, which waits for the query)'

/** `transaction`, refusing to start inside a transaction's work. */
export const unnested =
  (transaction: Transaction, insideWork: InsideWork): Transaction =>
  (work) =>
    insideWork() ? Promise.reject(new Error(NESTED_TRANSACTION)) : transaction(work)

/**
 * The dialect, except that its driver refuses a connection to code inside a transaction's work.
 * The work's own queries never ask the driver: its trx is bound to the transaction's connection.
 */
export function refusingInsideWork(dialect: Dialect, insideWork: InsideWork): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => {
      const driver = dialect.createDriver()
      const acquire = driver.acquireConnection.bind(driver)
      driver.acquireConnection = () =>
        insideWork() ? Promise.reject(new Error(QUERY_BESIDE_TRX)) : acquire()
      return driver
    },
  }
}

/**
 * Tells PostgreSQL's transactions' work apart by its async context, as they run side by side.
 * (SQLite's group commit knows without: it runs one work at a time, within one turn of the event
 * loop. An AsyncLocalStorage would cost every promise of the process there, about a tenth of a
 * ticket request's CPU time; PostgreSQL requests make half as many promises and cost more.)
 */
export class WorkContext {
  /** Present (and open until the work settles) in the async context of a transaction's work. */
  private readonly scope = new AsyncLocalStorage<{ open: boolean }>()

  readonly insideWork: InsideWork = () => this.scope.getStore()?.open === true

  /** `transaction`, running each work in a scope of its own. */
  marking(transaction: Transaction): Transaction {
    return (work) =>
      transaction(async (trx) => {
        const scope = { open: true }
        try {
          return await this.scope.run(scope, work, trx)
        } finally {
          // Tasks the work started and left running may open transactions of their own later.
          scope.open = false
        }
      })
  }
}
