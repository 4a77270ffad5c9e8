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
type Transaction = <T>(work: Work<T>) => Promise<T>

export const NESTED_TRANSACTION =
  "database.transaction was called inside a transaction's work: a transaction cannot hold another " +
  '(on SQLite it would wait for itself forever); pass the outer trx down instead'

export const QUERY_BESIDE_TRX =
  "a query on database.db inside a transaction's work: query through the work's trx " +
  '(on SQLite database.db waits for the transaction, which waits for the query)'

/**
 * The guards of one database: what runs inside a transaction's work is told apart by the async
 * context it runs in. (Another database handle, as another process would have, is not guarded.)
 */
export class TransactionGuards {
  /** Present (and open until the work settles) in the async context of a transaction's work. */
  private readonly insideWork = new AsyncLocalStorage<{ open: boolean }>()

  private isInsideWork(): boolean {
    return this.insideWork.getStore()?.open === true
  }

  /**
   * `transaction` (a dialect's), refusing to start inside another transaction's work, and marking
   * its own work so that what it calls is checked too.
   */
  unnested(transaction: Transaction): Transaction {
    return (work) => {
      if (this.isInsideWork()) return Promise.reject(new Error(NESTED_TRANSACTION))
      return transaction(async (trx) => {
        const scope = { open: true }
        try {
          return await this.insideWork.run(scope, work, trx)
        } finally {
          // Tasks the work started and left running may open transactions of their own later.
          scope.open = false
        }
      })
    }
  }

  /**
   * The dialect, except that its driver refuses a connection to code inside a transaction's work.
   * The work's own queries never ask the driver: its trx is bound to the transaction's connection.
   */
  refusingInsideWork(dialect: Dialect): Dialect {
    return {
      createAdapter: () => dialect.createAdapter(),
      createIntrospector: (db) => dialect.createIntrospector(db),
      createQueryCompiler: () => dialect.createQueryCompiler(),
      createDriver: () => {
        const driver = dialect.createDriver()
        const acquire = driver.acquireConnection.bind(driver)
        driver.acquireConnection = () =>
          this.isInsideWork() ? Promise.reject(new Error(QUERY_BESIDE_TRX)) : acquire()
        return driver
      },
    }
  }
}
