import { LRUCache } from 'lru-cache'
import type { Mark, WriteMarks } from '../../storage/write-marks.js'
import type { RoomReadKey } from './room-read.repository.js'

/** Room reads kept (each a room, its participants and two users: about 2 KB). */
const MAX_READS = 4096

interface Kept<Read> {
  /** The marks taken before it was read. */
  exact: Mark
  forSends: Mark
  read: Read
}

/**
 * SQLite: room reads, kept while nothing they read changed (the storage's write marks tell), so
 * that reading a room again costs no query: a room read was a fifth of a send's server time, a
 * sixth of a history page's. `exact` answers a read as it would be read now; `forSend` also
 * answers one whose room has an old last `created` or old read marks, which the sends that
 * moved them spared (write-marks.ts) and which a send does not rely on (its message is after
 * them), so that a user writing on in a room costs no read of it.
 */
export class KeptReads<Read extends KeptRead> {
  private readonly reads = new LRUCache<string, Kept<Read>>({ max: MAX_READS })

  constructor(
    private readonly marks: WriteMarks,
    private readonly readRoom: (roomID: string, userIDs: RoomReadKey['userIDs']) => Promise<Read | undefined>,
  ) {}

  /** The room read as it is now. */
  exact(roomID: string, userIDs: RoomReadKey['userIDs'] = []): Promise<Read | undefined> {
    return this.read(roomID, userIDs, (kept) => kept.exact === this.marks.exact())
  }

  /** The room read as a send relies on it now. */
  forSend(roomID: string, userIDs: RoomReadKey['userIDs']): Promise<Read | undefined> {
    return this.read(roomID, userIDs, (kept) => kept.forSends === this.marks.forSends())
  }

  private async read(
    roomID: string,
    userIDs: RoomReadKey['userIDs'],
    current: (kept: Kept<Read>) => boolean,
  ): Promise<Read | undefined> {
    const key = `${roomID}\u0000${userIDs[0] ?? ''}\u0000${userIDs[1] ?? ''}`
    const kept = this.reads.get(key)
    if (kept && current(kept)) return kept.read
    // Taken before reading: a change that runs while this reads moves them past what is filed.
    const marks = { exact: this.marks.exact(), forSends: this.marks.forSends() }
    const read = await this.readRoom(roomID, userIDs)
    if (read) this.reads.set(key, { ...marks, read: frozen(read) })
    return read
  }
}

/** What a room read holds (RoomAccess). */
interface KeptRead {
  room: object
  participants: readonly object[]
  users?: readonly object[] | undefined
}

/** Kept reads are shared by everyone who reads them: nobody may change one. */
function frozen<Read extends KeptRead>(read: Read): Read {
  for (const row of [read.room, ...read.participants, ...(read.users ?? [])]) Object.freeze(row)
  Object.freeze(read.participants)
  if (read.users) Object.freeze(read.users)
  return Object.freeze(read)
}
