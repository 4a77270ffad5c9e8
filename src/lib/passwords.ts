import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'
import { Semaphore } from './semaphore.js'

// Agents' passwords, stored as `scrypt$N$r$p$<salt>$<hash>` (base64url), so the cost can grow later.
const N = 16384
const R = 8
const P = 1
const KEY_LENGTH = 32

/**
 * Hashes run on libuv's threadpool (4 threads, shared with file and DNS work). Two at a time keep
 * a burst of logins from taking every core and thread: the rest of the server stays responsive,
 * and further logins wait their turn.
 */
export const PASSWORD_HASH_CONCURRENCY = 2
export const passwordHashing = new Semaphore(PASSWORD_HASH_CONCURRENCY)

const derive = (password: string, salt: Buffer, options: ScryptOptions) =>
  passwordHashing.run(
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) =>
          error ? reject(error) : resolve(key),
        ),
      ),
  )

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, { N, r: R, p: P })
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/** Constant-time check of a password against its stored hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64url')
  const key = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  })
  return key.length === expected.length && timingSafeEqual(key, expected)
}

/** A stored hash to check against when there is no account, so both paths cost the same. */
export const DUMMY_PASSWORD_HASH = `scrypt$${N}$${R}$${P}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(32).toString('base64url')}`
