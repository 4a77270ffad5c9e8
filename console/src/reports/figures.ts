import { texts } from '../texts'
import type { Answer } from '../types'

export type Report = Answer<'report/get'>
export type ReportRow = Report['rows'][number]
export type Grouping = Report['by']

const MINUTE = 60_000

/** A median time as people read it: "45 s", "12 min", "3 h 5 min", "2 d 4 h"; "–" for none. */
export function span(ms: number | null): string {
  if (ms === null) return '–'
  if (ms < MINUTE) return texts.reports.seconds(Math.round(ms / 1000))
  const minutes = Math.round(ms / MINUTE)
  if (minutes < 60) return texts.units.minutes(minutes)
  const hours = Math.floor(minutes / 60)
  if (hours < 24) return texts.units.hours(hours, minutes % 60)
  return texts.reports.days(Math.floor(hours / 24), hours % 24)
}

/** The unit a chart of these times reads best in: seconds under 2 minutes, minutes under 2 hours. */
export function timeUnit(values: (number | null)[]): { name: 'seconds' | 'minutes' | 'hours'; ms: number } {
  const longest = Math.max(0, ...values.map((value) => value ?? 0))
  if (longest < 2 * MINUTE) return { name: 'seconds', ms: 1000 }
  if (longest < 120 * MINUTE) return { name: 'minutes', ms: MINUTE }
  return { name: 'hours', ms: 60 * MINUTE }
}

/** Times in `unit` (one decimal) for a chart; null (no case to measure) stays a gap. */
export const inUnit = (values: (number | null)[], unit: { ms: number }) =>
  values.map((ms) => (ms === null ? null : Math.round((ms * 10) / unit.ms) / 10))

/** 'YYYY-MM-DD' of a local date. */
export function isoDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
}

/** The last `days` local days, today included. */
export function lastDays(days: number, today = new Date()): { from: string; to: string } {
  const from = new Date(today.getFullYear(), today.getMonth(), today.getDate() - (days - 1))
  return { from: isoDate(from), to: isoDate(today) }
}

/** The browser's time zone (the days reported are its days), UTC if it does not say. */
export const browserTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'

/** A row's name in the table and charts. */
export function rowName(row: ReportRow, by: Grouping): string {
  if (by === 'agent' && row.key === '') return texts.reports.noAgent
  return row.label || row.key
}
