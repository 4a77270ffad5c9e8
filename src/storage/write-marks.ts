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

/** Whether running the writing statement `sqlText` may change a room read. */
export function mayChangeRoomReads(sqlText: string): boolean {
  if (sparing.has(sqlText) || TRANSACTION_CONTROL.test(sqlText)) return false
  const table = WRITTEN.exec(sqlText)?.[1]
  // A write whose table this cannot tell (a CTE, raw SQL) may touch anything.
  return table === undefined || ROOM_READ_TABLES.has(table)
}

/**
 * SQLite: a mark that moves whenever a room read may have changed: before a statement that may
 * change one runs (mayChangeRoomReads; the statement cache tells), and when another connection
 * (the CLI) has committed anything. A cache of room reads files each under the mark taken before
 * it was read, and trusts it while the mark stays: a write that ran meanwhile, even one that
 * was rolled back, only costs a read.
 */
export class WriteMarks {
  private count = 0
  private lastVersion: unknown
  /** Whether this turn of the event loop asked SQLite already. */
  private checked = false

  /** `dataVersion`: SQLite's `PRAGMA data_version`, which moves with other connections' commits. */
  constructor(private readonly dataVersion: () => unknown) {
    this.lastVersion = dataVersion()
  }

  /** Called before a statement that may change room reads runs. */
  moved(): void {
    this.count++
  }

  /**
   * The mark now. Other connections' commits are looked for once per turn of the event loop (it
   * costs a read lock: 2.5 µs under load): what arrives together is judged together, as if it had
   * come a moment earlier.
   */
  current(): number {
    if (this.checked) return this.count
    this.checked = true
    setImmediate(() => {
      this.checked = false
    })
    const version = this.dataVersion()
    if (version !== this.lastVersion) {
      this.lastVersion = version
      this.count++
    }
    return this.count
  }
}
