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

/**
 * How deep objects and arrays may nest in a value a client sends (docs/reference/limits.md): the
 * data of a message is flat, and every walk of a value deeper than this (JSON.stringify above all)
 * recurses, so 20,000 levels overflowed the stack.
 */
export const MAX_JSON_DEPTH = 32

/**
 * How deep a whole JSON document a client sends may nest: checked on its text, before it is
 * parsed, since parsing builds every level (1 MiB of `[` took half a second). Twice the
 * parameters' limit, for the request's own structure around a parameter.
 */
export const MAX_DOCUMENT_DEPTH = 2 * MAX_JSON_DEPTH

/**
 * Whether JSON `text` nests objects and arrays deeper than `max`, read as JSON reads it (brackets
 * inside strings do not count); it stops at the first level too deep. Text that is not JSON may be
 * misread: its parse fails anyway.
 */
export function nestsDeeper(text: string, max: number): boolean {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) i = stringEnd(text, i)
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true
    } else if (c === 0x7d || c === 0x5d) depth--
  }
  return false
}

const QUOTE = 0x22
const BACKSLASH = 0x5c

/** The index of the quote that closes the string opened at `start` (the text's end if none). */
function stringEnd(text: string, start: number): number {
  for (let end = text.indexOf('"', start + 1); end !== -1; end = text.indexOf('"', end + 1)) {
    let backslashes = 0
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return end
  }
  return text.length
}

/**
 * What makes a JSON value unfit to keep: a string in it, keys included, that is not text, or
 * objects and arrays nested deeper than MAX_JSON_DEPTH (a value that is an object is one level);
 * undefined when it is fit. Walked without recursion.
 */
export function jsonFault(value: unknown): 'notText' | 'tooDeep' | undefined {
  const pending: [item: unknown, depth: number][] = [[value, 1]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next
    if (typeof item === 'string') {
      if (!isText(item)) return 'notText'
    } else if (typeof item === 'object' && item !== null) {
      if (depth > MAX_JSON_DEPTH) return 'tooDeep'
      if (Array.isArray(item)) for (const entry of item) pending.push([entry, depth + 1])
      else
        for (const [key, entry] of Object.entries(item)) {
          if (!isText(key)) return 'notText'
          pending.push([entry, depth + 1])
        }
    }
  }
  return undefined
}

/**
 * Unicode's bidirectional controls (embeddings, overrides, isolates and the invisible marks). In a
 * file name they make `\u202egnp.exe` read as "exe.png": names are stored and shown without them.
 */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

export const withoutBidiControls = (value: string): string => value.replace(BIDI_CONTROLS, '')
