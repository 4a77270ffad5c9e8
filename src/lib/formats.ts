import { isIP } from 'node:net'

// Format checks for values that arrive from outside.

export const isIPAddress = (value: string): boolean => isIP(value) !== 0

// Deliberately loose: one @, something on each side, a dot in the domain, no spaces.
export const isEmail = (value: string): boolean => /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(value)

/** Digits with the country code first, optionally after a `+`: 6 to 15 digits (E.164 allows 15). */
export const isPhone = (value: string): boolean => /^\+?[0-9]{6,15}$/.test(value)

/** An ID Parley issues (a userID, a fileID, …): decimal digits, at most 20 of them. */
export const isID = (value: unknown): value is string => typeof value === 'string' && /^\d{1,20}$/.test(value)

export function isHTTPURL(value: string): boolean {
  try {
    const { protocol, host } = new URL(value)
    return (protocol === 'http:' || protocol === 'https:') && host !== ''
  } catch {
    return false
  }
}

/**
 * Text both databases store alike: well-formed Unicode without NUL. PostgreSQL refuses NUL and
 * reads a lone UTF-16 surrogate as U+FFFD (so "x\ud800" and "x\ufffd" would be one value), where
 * SQLite keeps both; Parley refuses such strings at its boundary instead.
 */
export const isText = (value: string): boolean =>
  // String.prototype.isWellFormed is in Node 20, but TypeScript types it in lib ES2024, which
  // would also admit APIs that Node 20 lacks.
  !value.includes('\u0000') && (value as string & { isWellFormed(): boolean }).isWellFormed()

/** Whether every string in a JSON value, keys included, is text (walked without recursion). */
export function holdsOnlyText(value: unknown): boolean {
  const pending = [value]
  while (pending.length > 0) {
    const item = pending.pop()
    if (typeof item === 'string') {
      if (!isText(item)) return false
    } else if (Array.isArray(item)) {
      for (const entry of item) pending.push(entry)
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, entry] of Object.entries(item)) {
        if (!isText(key)) return false
        pending.push(entry)
      }
    }
  }
  return true
}

/**
 * Unicode's bidirectional controls (embeddings, overrides, isolates and the invisible marks). In a
 * file name they make `\u202egnp.exe` read as "exe.png": names are stored and shown without them.
 */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

export const withoutBidiControls = (value: string): string => value.replace(BIDI_CONTROLS, '')
