import { expect } from 'vitest'

/**
 * Polls `check` until it holds, every `every` ms for up to `ms`: for what another process, a timer
 * or a connection does by itself (what an injected clock cannot make happen). The one polling helper
 * of the tests; it is vitest's `expect.poll`.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 10_000,
  every = 20,
): Promise<void> {
  await expect
    .poll(check, { timeout: ms, interval: every, message: `timed out waiting for ${what}` })
    .toBe(true)
}
