// The events of one organization's cases in one UTC day, as report_days stores them: per kind of
// event (a case opened, handed over, closed, rated), when (ms since the day's start), the case's
// topic and agent (as a pair, one of the day's few), and its value (the first response time of a
// handover, null while unanswered; the resolution time of a closing; the rating). Packed in typed
// arrays, so a year of days is read and unpacked in a few milliseconds.

/** Kinds of event, in the order they are packed; reports.ts names them. */
export const KINDS = 4
/** The kinds with a value (all but opened). */
const VALUED = [false, true, true, true]
const FORMAT = 2
const HEADER = 10

/** One event as read from the cases, before packing. */
export interface Event {
  kind: number // 0..3
  time: number // epoch ms
  topic: number
  agent: string | null
  value: number | null
}

export interface DayEvents {
  /** The first instant of the day (epoch ms). */
  start: number
  /** Per kind (0..3): when (ms since `start`), which pair, and (valued kinds) the value, NaN for none. */
  times: Uint32Array[]
  pairs: (Uint8Array | Uint16Array | Uint32Array)[]
  values: (Int32Array | Float64Array | null)[]
  /** What `values` hold for none: INT_NULL in an Int32Array, NaN in a Float64Array. */
  none: number
  /** Per pair: the topic and the agent (null: no agent). */
  topics: Int32Array
  agents: (string | null)[]
}

export const INT_NULL = -(2 ** 31)
const fitsInt32 = (v: number | null) => v === null || (Number.isInteger(v) && v > INT_NULL && v < 2 ** 31)

/** Packs a day's events (in any order) into bytes. */
export function packDay(start: number, events: readonly Event[]): Buffer {
  const pairIDs = new Map<string, number>()
  const topics: number[] = []
  const agents: (string | null)[] = []
  const byKind: Event[][] = Array.from({ length: KINDS }, () => [])
  for (const event of events) byKind[event.kind]?.push(event)
  const counts = byKind.map((list) => list.length)
  const total = events.length
  const valued = byKind.filter((_, kind) => VALUED[kind]).flat()
  const wide = valued.some((event) => !fitsInt32(event.value))
  const pairOf = (event: Event) => {
    const id = `${event.topic}\u0000${event.agent ?? '\u0001'}`
    let pair = pairIDs.get(id)
    if (pair === undefined) {
      pair = topics.length
      pairIDs.set(id, pair)
      topics.push(event.topic)
      agents.push(event.agent)
    }
    return pair
  }
  const ordered = byKind.flat()
  const pairs = ordered.map(pairOf)
  const pairWidth = topics.length <= 0x100 ? 1 : topics.length <= 0x10000 ? 2 : 4
  const json = Buffer.from(JSON.stringify(agents))
  const valueBytes = valued.length * (wide ? 8 : 4)
  const pairBytes = pad(total * pairWidth)
  const size = HEADER * 4 + pad8(valueBytes) + total * 4 + topics.length * 4 + pairBytes + json.length
  const bytes = new Uint8Array(size)
  const header = [FORMAT, ...counts, topics.length, wide ? 1 : 0, pairWidth, json.length]
  new Uint32Array(bytes.buffer, 0, HEADER).set(header)
  let at = HEADER * 4
  const values = wide
    ? new Float64Array(bytes.buffer, at, valued.length)
    : new Int32Array(bytes.buffer, at, valued.length)
  valued.forEach((event, i) => {
    values[i] = event.value ?? (wide ? Number.NaN : INT_NULL)
  })
  at += pad8(valueBytes)
  new Uint32Array(bytes.buffer, at, total).set(ordered.map((event) => event.time - start))
  at += total * 4
  new Int32Array(bytes.buffer, at, topics.length).set(topics)
  at += topics.length * 4
  pairArray(pairWidth, bytes.buffer, at, total).set(pairs)
  at += pairBytes
  bytes.set(json, at)
  return Buffer.from(bytes.buffer)
}

const pairArray = (width: number, buffer: ArrayBufferLike, at: number, length: number) =>
  width === 1
    ? new Uint8Array(buffer, at, length)
    : width === 2
      ? new Uint16Array(buffer, at, length)
      : new Uint32Array(buffer, at, length)
const pad = (n: number) => Math.ceil(n / 4) * 4
const pad8 = (n: number) => Math.ceil(n / 8) * 8

/** Unpacks a day packed by packDay; undefined if packed in another format (by another version). */
export function unpackDay(start: number, packed: Uint8Array): DayEvents | undefined {
  // Typed arrays need aligned offsets: a buffer from a driver may start anywhere.
  const bytes = packed.byteOffset % 8 === 0 ? packed : new Uint8Array(packed)
  const { buffer, byteOffset } = bytes
  const header = new Uint32Array(buffer, byteOffset, HEADER)
  if (header[0] !== FORMAT) return undefined
  const counts = Array.from(header.subarray(1, 1 + KINDS))
  const [pairCount, wide, pairWidth, jsonBytes] = Array.from(header.subarray(1 + KINDS)) as number[]
  const total = counts.reduce((sum, n) => sum + n, 0)
  const valuedCount = counts.reduce((sum, n, kind) => sum + (VALUED[kind] ? n : 0), 0)
  let at = byteOffset + HEADER * 4
  const rawValues = wide ? new Float64Array(buffer, at, valuedCount) : new Int32Array(buffer, at, valuedCount)
  at += pad8(valuedCount * (wide ? 8 : 4))
  const allTimes = new Uint32Array(buffer, at, total)
  at += total * 4
  const topics = new Int32Array(buffer, at, pairCount as number)
  at += (pairCount as number) * 4
  const allPairs = pairArray(pairWidth as number, buffer, at, total)
  at += pad(total * (pairWidth as number))
  const agents = JSON.parse(Buffer.from(buffer, at, jsonBytes).toString()) as (string | null)[]
  const none = wide ? Number.NaN : INT_NULL
  const day: DayEvents = { start, times: [], pairs: [], values: [], none, topics, agents }
  let [first, firstValued] = [0, 0]
  for (let kind = 0; kind < KINDS; kind++) {
    const n = counts[kind] as number
    day.times.push(allTimes.subarray(first, first + n))
    day.pairs.push(allPairs.subarray(first, first + n))
    if (VALUED[kind]) {
      day.values.push(rawValues.subarray(firstValued, firstValued + n))
      firstValued += n
    } else day.values.push(null)
    first += n
  }
  return day
}
