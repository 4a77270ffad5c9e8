import type { DayEvents } from './day-events.js'

// An instance's own copy of days of events it read (reports.repository.ts), each with the version
// report_days had when it was read: it is used only while the database still has that version,
// so a change made through any instance is seen. The least recently used days go first once the
// copies take more than `maxBytes`.

interface Kept {
  version: number
  events: DayEvents
  bytes: number
}

export class DayMemory {
  private readonly days = new Map<string, Kept>()
  private bytes = 0

  constructor(private readonly maxBytes: number) {}

  /** The day's events if kept at `version`. */
  get(organizationID: string, day: number, version: number): DayEvents | undefined {
    const key = `${organizationID}\u0000${day}`
    const kept = this.days.get(key)
    if (!kept || kept.version !== version) return undefined
    // Most recently used last.
    this.days.delete(key)
    this.days.set(key, kept)
    return kept.events
  }

  set(organizationID: string, day: number, version: number, events: DayEvents, bytes: number): void {
    const key = `${organizationID}\u0000${day}`
    const old = this.days.get(key)
    if (old) {
      this.bytes -= old.bytes
      this.days.delete(key)
    }
    this.days.set(key, { version, events, bytes })
    this.bytes += bytes
    for (const [oldest, kept] of this.days) {
      if (this.bytes <= this.maxBytes) break
      this.days.delete(oldest)
      this.bytes -= kept.bytes
    }
  }
}
