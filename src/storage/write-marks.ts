/**
 * The tables a room read reads (domain/rooms/room-read.repository.ts): a write to any other table
 * leaves every room read as it was.
 */
const ROOM_READ_TABLES = new Set(['rooms', 'room_participants', 'users'])

/** Writing statements that change nothing a send relies on in its room read (by SQL text). */
const sparing = new Set<string>()

/**
 * Marks a prepared query's SQL as sparing room reads: it writes only columns of their tables
 * that a message send does not rely on (a room's last `created`, read marks: a new message is
 * after every mark). See prepareQuery's `sparesRoomReads`.
 */
export const spareRoomReads = (sqlText: string): void => {
  sparing.add(sqlText)
}

/**
 * The table a statement Kysely built writes to; undefined if it writes none, or is not plain (a
 * schema-qualified name, "main"."users", is not read as table "main").
 */
const WRITTEN = /^(?:insert(?: or \w+)? into|update|delete from|replace into) "(\w+)"(?!\.)/i

/** Statements that change nothing themselves (SQLite calls BEGIN IMMEDIATE a write: it locks). */
const TRANSACTION_CONTROL = /^(?:begin|commit|end|rollback|savepoint|release)\b/i

export type RoomReadsChange = 'none' | 'spared by sends' | 'any'

/**
 * What running the writing statement `sqlText` may do to room reads: nothing, change only what
 * sends spare (spareRoomReads), or change anything in them.
 */
export function roomReadsChange(sqlText: string): RoomReadsChange {
  if (TRANSACTION_CONTROL.test(sqlText)) return 'none'
  if (sparing.has(sqlText)) return 'spared by sends'
  const table = WRITTEN.exec(sqlText)?.[1]
  // A write whose table this cannot tell (a CTE, raw SQL) may touch anything.
  return table === undefined || ROOM_READ_TABLES.has(table) ? 'any' : 'none'
}

/** A mark: a number that moves whenever what it covers may have changed. */
export type Mark = number

/**
 * SQLite: two marks of room reads, each moving before a statement that may change what it covers
 * runs (roomReadsChange; the statement cache tells), and when another connection (the CLI) has
 * committed anything. `exact()` covers everything a room read reads; `forSends()` leaves out
 * what sends spare (a room's last `created`, read marks). A cache of room reads files each under
 * the mark taken before it was read, and trusts it while the mark stays: a write that ran
 * meanwhile, even one that was rolled back, only costs a read.
 */
export class WriteMarks {
  private sendsMark: Mark = 0
  private exactMark: Mark = 0
  private lastVersion: unknown
  /** Whether this turn of the event loop asked SQLite already. */
  private checked = false

  /** `dataVersion`: SQLite's `PRAGMA data_version`, which moves with other connections' commits. */
  constructor(private readonly dataVersion: () => unknown) {
    this.lastVersion = dataVersion()
  }

  /** Called before a statement that may change room reads runs. */
  moved(change: Exclude<RoomReadsChange, 'none'>): void {
    this.exactMark++
    if (change === 'any') this.sendsMark++
  }

  /** The mark of everything a room read reads, now. */
  exact(): Mark {
    this.lookForOthers()
    return this.exactMark
  }

  /** The mark of what a send relies on in a room read, now. */
  forSends(): Mark {
    this.lookForOthers()
    return this.sendsMark
  }

  /**
   * Other connections' commits are looked for once per turn of the event loop (it costs a read
   * lock: 2.5 µs under load): what arrives together is judged together, as if it had come a
   * moment earlier.
   */
  private lookForOthers(): void {
    if (this.checked) return
    this.checked = true
    setImmediate(() => {
      this.checked = false
    })
    const version = this.dataVersion()
    if (version !== this.lastVersion) {
      this.lastVersion = version
      this.moved('any')
    }
  }
}
