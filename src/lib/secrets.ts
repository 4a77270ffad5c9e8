import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** A random token of `bytes` bytes of entropy, URL-safe and colon-free. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

/**
 * The at-rest form of a high-entropy secret (server key secret, ticket, refresh token).
 * A fast hash is enough: with 256 random bits there is nothing to brute-force, and it keeps
 * lookups by hash possible.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url')
}

/** Constant-time comparison of two hashes produced by hashSecret. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
