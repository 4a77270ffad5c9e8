import { expect, test } from 'vitest'
import { killChildren, spawnChild } from '../support/children.js'
import { collectOutput } from '../support/processes.js'

// What a test starts is killed with everything it started itself, even what outlived its leader
// (a shell's background job), whatever became of the test.

const running = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

test("a child's background job outlives it, and is killed with its group when the file ends", async () => {
  const shell = spawnChild('bash', ['-c', 'sleep 300 >/dev/null & echo $!'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  const { code, output } = await collectOutput(shell)
  const job = Number(output.trim())
  expect(code).toBe(0)
  expect(running(job)).toBe(true)

  await killChildren()
  // SIGKILL is not instant on a busy machine; the job must be gone, however long that takes.
  await expect.poll(() => running(job), { timeout: 20_000 }).toBe(false)
})
