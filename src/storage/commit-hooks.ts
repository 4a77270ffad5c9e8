import type { Kysely } from 'kysely'
import type { Schema } from './schema.js'

/**
 * What is to be done once a transaction has committed (and never if it rolls back): telling the
 * delivery worker of new outbox rows, say, which a worker looking before the commit would not see.
 * The transaction runners (group-commit.ts on SQLite, database.ts on PostgreSQL) open each work's
 * trx here and say when it committed.
 */
export class CommitHooks {
  private readonly open = new WeakMap<Kysely<Schema>, (() => void)[]>()

  /** `trx` is a transaction's: hooks added for it wait for `committed`. */
  begin(trx: Kysely<Schema>): void {
    this.open.set(trx, [])
  }

  /**
   * Runs `hook` once the transaction of `db` has committed; at once when `db` is no transaction's
   * (a statement on it committed by itself). A hook runs in a microtask of its own: it cannot fail
   * the work whose commit it follows.
   */
  add(db: Kysely<Schema>, hook: () => void): void {
    const hooks = this.open.get(db)
    if (hooks) hooks.push(hook)
    else queueMicrotask(hook)
  }

  /** The transaction of `trx` committed: its hooks run. */
  committed(trx: Kysely<Schema>): void {
    const hooks = this.open.get(trx) ?? []
    this.open.delete(trx)
    for (const hook of hooks) queueMicrotask(hook)
  }
}
