// Local days of an IANA time zone, computed here (Intl, so DST-correct) rather than in SQL: the
// databases only get a handful of spans of constant UTC offset and do integer arithmetic with them,
// the same on SQLite and PostgreSQL.

export const DAY_MS = 86_400_000

/** A span of time [start, end) over which the zone's UTC offset is `offset` (ms, local − UTC). */
export interface OffsetSpan {
  start: number
  end: number
  offset: number
}

/** The local days from..to (inclusive) of a zone: where they start and end, and the zone's offsets meanwhile. */
export interface LocalDays {
  /** The days, 'YYYY-MM-DD', in order. */
  dates: string[]
  /** The first instant of the first day (epoch ms). */
  start: number
  /** The first instant after the last day. */
  end: number
  /** Spans covering [start, end): an instant t of a span is on local day floor((t + offset) / DAY_MS). */
  spans: OffsetSpan[]
  /** The local day number (days since 1970-01-01) of the first day. */
  firstDay: number
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** The day number (days since 1970-01-01) of a calendar date 'YYYY-MM-DD'; undefined if there is no such date. */
export function dayNumber(date: string): number | undefined {
  const match = DATE.exec(date)
  if (!match) return undefined
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const ms = Date.UTC(year, month - 1, day)
  const back = new Date(ms)
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day)
    return undefined
  return ms / DAY_MS
}

export const dateOf = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10)

/** A formatter for the zone, or undefined when Intl does not know it. */
export function zoneFormatter(timeZone: string): Intl.DateTimeFormat | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
  } catch {
    return undefined
  }
}

export const isTimeZone = (timeZone: string): boolean => zoneFormatter(timeZone) !== undefined

/** The zone's offset at instant t (ms; whole seconds). */
function offsetAt(format: Intl.DateTimeFormat, t: number): number {
  const parts: Record<string, number> = {}
  for (const part of format.formatToParts(t)) parts[part.type] = Number(part.value)
  const local = Date.UTC(
    parts.year as number,
    (parts.month as number) - 1,
    parts.day as number,
    parts.hour as number,
    parts.minute as number,
    parts.second as number,
  )
  return local - Math.floor(t / 1000) * 1000
}

/** Offsets are looked at this often; a change between two looks is then found to the millisecond. */
const STEP = 12 * 3_600_000

/** Spans of constant offset covering [from, to). */
function offsetSpans(format: Intl.DateTimeFormat, from: number, to: number): OffsetSpan[] {
  const spans: OffsetSpan[] = []
  let start = from
  let offset = offsetAt(format, from)
  for (let t = from; t < to; ) {
    const next = Math.min(t + STEP, to)
    const later = offsetAt(format, next)
    if (later !== offset || next === to) {
      // The first instant with the new offset, between t and next.
      let [low, high] = [t, next]
      if (later !== offset) {
        while (high - low > 1) {
          const middle = Math.floor((low + high) / 2)
          if (offsetAt(format, middle) === offset) low = middle
          else high = middle
        }
      }
      spans.push({ start, end: high, offset })
      ;[start, offset] = [high, offsetAt(format, high)]
    }
    t = next
  }
  return spans
}

/** The first instant of local day `day` (a day number), given spans covering it. */
function startOfDay(spans: readonly OffsetSpan[], day: number): number {
  let first = Number.POSITIVE_INFINITY
  for (const span of spans) {
    const t = Math.max(span.start, day * DAY_MS - span.offset)
    if (t < span.end && t < first) first = t
  }
  return first
}

/** The local days `from`..`to` (day numbers, inclusive) of the zone `format` formats in. */
export function localDays(format: Intl.DateTimeFormat, from: number, to: number): LocalDays {
  // Offsets are within a day of UTC: two days either side cover every local day of the range.
  const around = offsetSpans(format, (from - 2) * DAY_MS, (to + 3) * DAY_MS)
  const start = startOfDay(around, from)
  const end = startOfDay(around, to + 1)
  const spans = around
    .filter((span) => span.end > start && span.start < end)
    .map((span) => ({
      start: Math.max(span.start, start),
      end: Math.min(span.end, end),
      offset: span.offset,
    }))
  const dates: string[] = []
  for (let day = from; day <= to; day++) dates.push(dateOf(day))
  return { dates, start, end, spans, firstDay: from }
}
