import type { Found, GroupKey, Wanted } from './reports.repository.js'

// Exact medians from durations counted per band (reports.repository.ts): the counts say in which
// band, and at which rank within it, a group's middle duration(s) are; only those are looked up.

interface Place {
  band: number
  rank: number
}

const id = (key: GroupKey, event: number) => `${event}\u0000${key}`
const placeID = (key: GroupKey, event: number, place: Place) =>
  `${id(key, event)}\u0000${place.band}:${place.rank}`

/** The medians of some groups' durations, each kind of event apart. */
export class Medians {
  /** Per group and kind: durations per band. */
  private readonly histograms = new Map<
    string,
    { key: GroupKey; event: number; bands: Map<number, number> }
  >()
  private found = new Map<string, number>()

  /** Counts `count` durations of a group in a band. */
  add(key: GroupKey, event: number, band: number, count: number): void {
    const group = this.histograms.get(id(key, event)) ?? { key, event, bands: new Map<number, number>() }
    group.bands.set(band, (group.bands.get(band) ?? 0) + count)
    this.histograms.set(id(key, event), group)
  }

  /** The durations to look up: each group's middle one(s), by band and rank within it. */
  wanted(): Wanted[] {
    const wanted = new Map<string, Wanted>()
    for (const { key, event, bands } of this.histograms.values())
      for (const place of middlePlaces(bands))
        wanted.set(placeID(key, event, place), { key, event, ...place })
    return [...wanted.values()]
  }

  /** Takes in the durations looked up. */
  record(found: readonly Found[]): void {
    for (const f of found) this.found.set(placeID(f.key, f.event, f), f.value)
  }

  /** A group's median: the middle duration, or the mean of the middle two; null without durations. */
  median(key: GroupKey, event: number): number | null {
    const group = this.histograms.get(id(key, event))
    if (!group) return null
    const values = middlePlaces(group.bands).map((place) => this.found.get(placeID(key, event, place)))
    if (values.length === 0 || values.some((value) => value === undefined)) return null
    return ((values[0] as number) + (values[1] as number)) / 2
  }
}

/** Where the lower and upper middle durations are (the same one for an odd count); none for none. */
function middlePlaces(bands: Map<number, number>): Place[] {
  const total = [...bands.values()].reduce((sum, n) => sum + n, 0)
  if (total === 0) return []
  const order = [...bands.keys()].sort((a, b) => a - b)
  return [Math.floor((total + 1) / 2), Math.floor((total + 2) / 2)].map((rank) => {
    let before = 0
    for (const band of order) {
      const count = bands.get(band) as number
      if (rank <= before + count) return { band, rank: rank - before }
      before += count
    }
    throw new Error('a rank beyond the durations counted')
  })
}
