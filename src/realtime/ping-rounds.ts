import { eachInTurns } from '../lib/in-turns.js'
import type { Connection } from './connections.js'

// A ping round pings PINGS_PER_SLICE sockets (a few milliseconds' work, their pongs as much
// again), then waits PING_SLICE_GAP_MS: 10,000 sockets take a second, in which messages are served
// as before. Pinging them all at once held the event loop for the round's length, and every
// message arriving meanwhile waited (the real-time benchmark's p99); so did pinging a slice per
// turn, back to back, with their pongs.
const PINGS_PER_SLICE = 250
const PING_SLICE_GAP_MS = 25

/** Sockets pinged per slice of a round over `sockets`, so that it spans a fifth of the interval at most. */
export function pingSliceSize(sockets: number, pingIntervalMs: number): number {
  const slices = Math.max(1, Math.floor(pingIntervalMs / 5 / PING_SLICE_GAP_MS))
  return Math.max(PINGS_PER_SLICE, Math.ceil(sockets / slices))
}

/** Pings one socket, or drops it after two pings without a pong. */
function ping(connection: Connection): void {
  // Closed since the round began (it spans a second or more): ws refuses a ping then.
  if (connection.socket.readyState !== connection.socket.OPEN) return
  if (connection.missedPongs >= 2) {
    connection.socket.terminate()
    return
  }
  connection.missedPongs++
  connection.socket.ping()
}

const sliceGap = () => new Promise<void>((resolve) => setTimeout(resolve, PING_SLICE_GAP_MS).unref())

/** One ping round over these sockets, in slices (see above). */
export const pingRound = (all: readonly Connection[], pingIntervalMs: number): Promise<void> =>
  eachInTurns(all, pingSliceSize(all.length, pingIntervalMs), ping, sliceGap)
