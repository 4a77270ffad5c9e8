import { texts } from './texts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** "now", "4 min", "2 h 5 min", "3 d": how long since `since`. */
export function duration(since: number, now: number): string {
  const elapsed = Math.max(0, now - since)
  if (elapsed < MINUTE) return texts.units.now
  if (elapsed < HOUR) return texts.units.minutes(Math.floor(elapsed / MINUTE))
  if (elapsed < DAY) {
    const minutes = Math.floor((elapsed % HOUR) / MINUTE)
    return texts.units.hours(Math.floor(elapsed / HOUR), minutes)
  }
  return texts.units.days(Math.floor(elapsed / DAY))
}

const time = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' })
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

/** A time of day for today's moments, a date and time for older ones. */
export function when(at: number, now = Date.now()): string {
  return new Date(at).toDateString() === new Date(now).toDateString() ? time.format(at) : dateTime.format(at)
}

export const fullTime = (at: number): string => dateTime.format(at)

/** How long a waiting visitor has waited, as a cue: fine, getting long, too long. */
export function waitLevel(since: number, now: number): 'ok' | 'warn' | 'late' {
  const elapsed = now - since
  if (elapsed >= 15 * MINUTE) return 'late'
  if (elapsed >= 5 * MINUTE) return 'warn'
  return 'ok'
}

/** A file's size as people read it: 820 B, 14 KB, 2.4 MB. */
export function fileSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`
  const [value, unit] = bytes < 1_000_000 ? [bytes / 1000, 'KB'] : [bytes / 1_000_000, 'MB']
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${unit}`
}
