import { describe, expect, test } from 'vitest'
import {
  DAY_MS,
  dayNumber,
  isTimeZone,
  localDays,
  zoneFormatter,
} from '../../src/domain/reports/local-days.js'

// The local days of reports (docs/reference/agent-api.md, "Reports"): where each starts in a zone, daylight saving time
// included, and the spans of constant offset the SQL works out a row's day with.

const days = (zone: string, from: string, to: string) =>
  localDays(zoneFormatter(zone) as Intl.DateTimeFormat, dayNumber(from) as number, dayNumber(to) as number)

/** The day an instant falls on, as the SQL works it out from the spans. */
const dayOf = (d: ReturnType<typeof days>, t: number) => {
  const span = d.spans.find((s) => t >= s.start && t < s.end)
  return span ? d.dates[Math.floor((t + span.offset) / DAY_MS) - d.firstDay] : undefined
}

describe('local days', () => {
  test('a day of 25 hours when Berlin leaves summer time, 23 when it starts it', () => {
    const autumn = days('Europe/Berlin', '2027-10-30', '2027-10-31')
    expect([autumn.start, autumn.end]).toEqual([
      Date.parse('2027-10-29T22:00:00Z'),
      Date.parse('2027-10-31T23:00:00Z'),
    ])
    expect(autumn.spans.map((s) => s.offset)).toEqual([7_200_000, 3_600_000])
    expect(dayOf(autumn, Date.parse('2027-10-30T22:30:00Z'))).toBe('2027-10-31') // 00:30 CEST
    expect(dayOf(autumn, Date.parse('2027-10-31T22:59:59Z'))).toBe('2027-10-31') // 23:59:59 CET
    expect(dayOf(autumn, Date.parse('2027-10-31T23:00:00Z'))).toBe(undefined) // the 1st of November
    const leaving = days('Europe/Berlin', '2027-10-31', '2027-10-31')
    expect(leaving.end - leaving.start).toBe(25 * 3_600_000)
    const spring = days('Europe/Berlin', '2027-03-28', '2027-03-28')
    expect(spring.end - spring.start).toBe(23 * 3_600_000)
  })

  test('zones a quarter of an hour off, zones without summer time, and UTC', () => {
    const kathmandu = days('Asia/Kathmandu', '2027-01-01', '2027-12-31')
    expect(kathmandu.spans).toEqual([{ start: kathmandu.start, end: kathmandu.end, offset: 20_700_000 }])
    expect(kathmandu.start).toBe(Date.parse('2026-12-31T18:15:00Z'))
    expect(kathmandu.dates).toHaveLength(365)
    const utc = days('UTC', '2028-01-01', '2028-12-31')
    expect([utc.dates.length, utc.start, utc.end]).toEqual([366, Date.UTC(2028, 0, 1), Date.UTC(2029, 0, 1)])
    // Chile: summer time ends at midnight (03:00Z), which comes twice: 23:00-24:00 is the 3rd again.
    const santiago = days('America/Santiago', '2027-04-03', '2027-04-04')
    expect(dayOf(santiago, Date.parse('2027-04-04T03:30:00Z'))).toBe('2027-04-03') // 23:30 -04 (clocks went back at 03:00Z), the 3rd
    expect(dayOf(santiago, Date.parse('2027-04-04T04:30:00Z'))).toBe('2027-04-04') // 00:30 -04, the 4th
  })

  test('dates and zones that are not', () => {
    expect(['2027-02-29', '2027-13-01', '2027-1-1', '', '2027-02-28x'].map(dayNumber)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ])
    expect(dayNumber('2028-02-29')).toBe(Date.UTC(2028, 1, 29) / DAY_MS)
    expect(['Europe/Berlin', 'utc', 'Mars/Olympus', 'Europe/Berlin\u0000', ''].map(isTimeZone)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ])
  })
})
