import { isIP } from 'node:net'

// Format checks for values that arrive from outside.

export const isIPAddress = (value: string): boolean => isIP(value) !== 0

// Deliberately loose: one @, something on each side, a dot in the domain, no spaces.
export const isEmail = (value: string): boolean => /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(value)

/** Digits with the country code first, optionally after a `+`: 6 to 15 digits (E.164 allows 15). */
export const isPhone = (value: string): boolean => /^\+?[0-9]{6,15}$/.test(value)

export function isHTTPURL(value: string): boolean {
  try {
    const { protocol, host } = new URL(value)
    return (protocol === 'http:' || protocol === 'https:') && host !== ''
  } catch {
    return false
  }
}
