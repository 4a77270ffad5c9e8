import type { Database } from '../../storage/database.js'
import type { Repositories } from '../repositories.js'

/** Blockers whose lists are kept at most (the oldest read goes first). */
const KEPT = 10_000

/**
 * SQLite: each blocker's list of blocked users, read once and kept, so that a personal room's send
 * costs no query for it (docs/architecture/storage-fast-paths.md). Only this process writes an
 * SQLite database, and every change of a list goes through `changed`: a list read before a change
 * and answered after it is not kept.
 */
export class KnownBlocks {
  private readonly lists = new Map<string, Set<string>>()
  private readonly versions = new Map<string, number>()

  constructor(
    private readonly database: Database,
    private readonly repositories: Pick<Repositories, 'blocks'>,
  ) {}

  /** Whether `blockerID` blocked `blockedID`. */
  async has(blockerID: string, blockedID: string): Promise<boolean> {
    const kept = this.lists.get(blockerID)
    if (kept) return kept.has(blockedID)
    const version = this.versions.get(blockerID)
    const list = new Set(await this.repositories.blocks.blockedIDs(this.database.db, blockerID))
    if (this.versions.get(blockerID) === version) this.keep(blockerID, list)
    return list.has(blockedID)
  }

  /** The blocker's list changed (committed): it is read afresh next time. */
  changed(blockerID: string): void {
    this.lists.delete(blockerID)
    this.versions.set(blockerID, (this.versions.get(blockerID) ?? 0) + 1)
  }

  private keep(blockerID: string, list: Set<string>): void {
    if (this.lists.size >= KEPT) this.lists.delete(this.lists.keys().next().value as string)
    this.lists.set(blockerID, list)
  }
}
