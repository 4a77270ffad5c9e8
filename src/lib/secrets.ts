import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

// Random bytes are drawn from the system a pool at a time (as crypto.randomUUID does): one
// system call per 128 tokens instead of one per token. Each byte is handed out once.
const POOL_SIZE = 4096
let pool = Buffer.alloc(0)
let offset = 0

/** A random token of `bytes` bytes of entropy (at most 4096), URL-safe and colon-free. */
export function randomToken(bytes = 32): string {
  if (offset + bytes > pool.length) {
    pool = randomBytes(POOL_SIZE)
    offset = 0
  }
  const token = pool.toString('base64url', offset, offset + bytes)
  offset += bytes
  return token
}

/**
 * The at-rest form of a high-entropy secret (server key secret, ticket, refresh token).
 * A fast hash is enough: with 256 random bits there is nothing to brute-force, and it keeps
 * lookups by hash possible.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url')
}

/**
 * The CSRF token of an agent session, derived from its session token: the session can be shown
 * its CSRF token again (after a console reload) while only the token's hash is stored.
 */
export function csrfTokenOf(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('parley agent csrf').digest('base64url')
}

/** Constant-time comparison of two secrets or hashes (the time says nothing of where they differ). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
