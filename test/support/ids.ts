import { ID_EPOCH, WORKERS } from '../../src/lib/ids.js'

/** The parts of a new-format ID (lib/ids.ts): 41 bits of time, 9 of worker, 3 of sequence. */
export const partsOf = (id: string) => {
  const n = Number(id)
  const sequences = 2 ** 53 / 2 ** 41 / WORKERS
  return {
    ms: ID_EPOCH + Math.floor(n / (WORKERS * sequences)),
    worker: Math.floor(n / sequences) % WORKERS,
    sequence: n % sequences,
  }
}
