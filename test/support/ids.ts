import { ID_EPOCH } from '../../src/lib/ids.js'

/** The parts of a new-format ID (lib/ids.ts): 41 bits of time, 6 of worker, 6 of sequence. */
export const partsOf = (id: string) => {
  const n = Number(id)
  return { ms: ID_EPOCH + Math.floor(n / 4096), worker: Math.floor(n / 64) % 64, sequence: n % 64 }
}
