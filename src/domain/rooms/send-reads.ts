import { LRUCache } from 'lru-cache'
import type { WriteMarks } from '../../storage/write-marks.js'
import type { RoomReadKey } from './room-read.repository.js'

/** Room reads kept (each a room, its participants and two users: about 2 KB). */
const MAX_READS = 4096

/**
 * SQLite: the room reads of message sends, kept while nothing they read changed (the storage's
 * write marks tell), so that a user writing on in a room costs no read of it: the read was a
 * fifth of a send's server time. Only sends use them: a kept read's room has an old last
 * `created` and old read marks, which the sends that moved them spared (write-marks.ts), and
 * which a send does not rely on (its message is after them).
 */
export class SendReads<Read extends KeptRead> {
  private readonly reads = new LRUCache<string, { mark: number; read: Read }>({ max: MAX_READS })

  constructor(
    private readonly marks: WriteMarks,
    private readonly readRoom: (roomID: string, userIDs: RoomReadKey['userIDs']) => Promise<Read | undefined>,
  ) {}

  async read(roomID: string, userIDs: RoomReadKey['userIDs']): Promise<Read | undefined> {
    const key = `${roomID}\u0000${userIDs[0] ?? ''}\u0000${userIDs[1] ?? ''}`
    // Taken before reading: a change that runs while this reads moves it past what is filed.
    const mark = this.marks.current()
    const kept = this.reads.get(key)
    if (kept?.mark === mark) return kept.read
    const read = await this.readRoom(roomID, userIDs)
    if (read) this.reads.set(key, { mark, read: frozen(read) })
    return read
  }
}

/** What a room read holds (RoomAccess). */
interface KeptRead {
  room: object
  participants: readonly object[]
  users?: readonly object[] | undefined
}

/** Kept reads are shared by every send that uses them: nobody may change one. */
function frozen<Read extends KeptRead>(read: Read): Read {
  for (const row of [read.room, ...read.participants, ...(read.users ?? [])]) Object.freeze(row)
  Object.freeze(read.participants)
  if (read.users) Object.freeze(read.users)
  return Object.freeze(read)
}
