import { hkdfSync } from 'node:crypto'

/** A 32-byte key for one purpose, derived from the master key (so the master key never signs). */
export function deriveKey(masterKey: Buffer, purpose: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', masterKey, Buffer.alloc(0), `parley/${purpose}`, 32))
}
