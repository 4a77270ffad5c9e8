import type { Kysely } from 'kysely'
import type { Database } from '../../storage/database.js'
import type { Schema } from '../../storage/schema.js'
import type { CommittedHappenings, HappeningMap, HappeningName, TransactionHappenings } from './catalogue.js'

type Trx = Kysely<Schema>
type InTransaction<K extends keyof TransactionHappenings> = (
  happening: TransactionHappenings[K],
  trx: Trx,
) => Promise<void>
type AfterCommit<K extends HappeningName> = (happening: HappeningMap[K]) => void | Promise<void>

/** One consequence of one kind of happening: in the change's transaction, or after its commit. */
export type Listener =
  | { on: keyof TransactionHappenings; inTransaction: InTransaction<keyof TransactionHappenings> }
  | { on: HappeningName; afterCommit: AfterCommit<HappeningName> }

/** A listener that writes with the change (the outbox): it runs in the change's transaction, on its trx. */
export const inTransaction = <K extends keyof TransactionHappenings>(
  on: K,
  listener: InTransaction<K>,
): Listener => ({ on, inTransaction: listener }) as Listener

/** A listener that acts once the change committed (frames, the delivery bell, other modules' reactions). */
export const afterCommit = <K extends HappeningName>(on: K, listener: AfterCommit<K>): Listener =>
  ({ on, afterCommit: listener }) as Listener

/** Where a listener that failed after a commit is reported (the change is made; nobody waits for it). */
export interface DispatcherLog {
  error(details: object, message: string): void
}

/**
 * Hands each happening to its listeners (src/listeners.ts). Services report what changed and never
 * call what follows from it, so a new consequence is a new listener, and a module never reaches into
 * another to react (no setters). Reporting before the listeners are given throws: a service built
 * without them would silently skip what follows.
 */
export class Dispatcher {
  private readonly inTransaction = new Map<HappeningName, InTransaction<keyof TransactionHappenings>[]>()
  private readonly afterCommit = new Map<HappeningName, AfterCommit<HappeningName>[]>()
  private listening = false

  constructor(
    private readonly database: Pick<Database, 'afterCommit'>,
    private readonly log: DispatcherLog = console,
  ) {}

  /** The listeners, in the order they run; given once, before any happening. */
  listen(listeners: readonly Listener[]): void {
    if (this.listening) throw new Error('dispatcher: listeners are given once')
    this.listening = true
    for (const listener of listeners) {
      if ('inTransaction' in listener) listOf(this.inTransaction, listener.on).push(listener.inTransaction)
      else listOf(this.afterCommit, listener.on).push(listener.afterCommit)
    }
  }

  /**
   * A change inside the transaction `trx`: its transaction listeners run now, on `trx` (a failure
   * fails the change), and its commit listeners once `trx` has committed (never if it rolls back).
   */
  async emit<K extends keyof TransactionHappenings>(trx: Trx, name: K, happening: TransactionHappenings[K]) {
    for (const listener of this.listenersOf(this.inTransaction, name)) await listener(happening, trx)
    const after = this.listenersOf(this.afterCommit, name)
    if (after.length > 0) this.database.afterCommit(trx, () => void this.run(name, after, happening))
  }

  /**
   * A change already committed (or made without a transaction): its listeners run now, in order, the
   * first one at once; the caller waits for them and hears of a failure.
   */
  async tell<K extends keyof CommittedHappenings>(name: K, happening: CommittedHappenings[K]): Promise<void> {
    for (const listener of this.listenersOf(this.afterCommit, name)) await listener(happening)
  }

  private async run(
    name: HappeningName,
    listeners: readonly AfterCommit<HappeningName>[],
    happening: unknown,
  ) {
    for (const listener of listeners) {
      try {
        await listener(happening as HappeningMap[HappeningName])
      } catch (error) {
        this.log.error({ err: error, happening: name }, 'dispatcher: a listener failed after the commit')
      }
    }
  }

  private listenersOf<T>(map: Map<HappeningName, T[]>, name: HappeningName): readonly T[] {
    if (!this.listening) throw new Error(`dispatcher: ${name} reported before the listeners were given`)
    return map.get(name) ?? []
  }
}

function listOf<T>(map: Map<HappeningName, T[]>, name: HappeningName): T[] {
  const list = map.get(name) ?? []
  map.set(name, list)
  return list
}
