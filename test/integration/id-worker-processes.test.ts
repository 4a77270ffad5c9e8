import type { ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { spawnChild } from '../support/children.js'
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../support/databases.js'
import { partsOf } from '../support/ids.js'

// Worker numbers raced for by real processes (storage/id-workers.ts): processes starting at once
// on one database each get a number of their own, and the numbers of processes killed without
// giving them back are taken again as soon as their (short) lease has run out, by holders whose IDs
// come after every ID the killed one issued.

const LEASE_MS = 5000
const IDS_EACH = 200

interface Claimer {
  child: ChildProcess
  worker: number
  ids: string[]
}

describeEachDatabase('ID worker numbers raced for by processes', (dialect) => {
  let testDatabase: TestDatabase
  beforeAll(async () => {
    testDatabase = await createTestDatabase(dialect)
  })
  afterAll(async () => {
    await testDatabase.drop()
  })

  /** Starts a process that leases a number, and resolves with what it issued. */
  const claimer = (): Promise<Claimer> => {
    const child = spawnChild(
      process.execPath,
      [
        'test/support/id-claimer.mjs',
        testDatabase.dataDir,
        testDatabase.databaseURL ?? '',
        String(LEASE_MS),
        String(IDS_EACH),
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    )
    return new Promise((resolve, reject) => {
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (line) =>
        resolve({ child, ...JSON.parse(line) }),
      )
      child.once('exit', (code) => reject(new Error(`claimer exited with ${code}`)))
    })
  }
  const kill = async ({ child }: Claimer) => {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
  }
  const leases = () =>
    testDatabase.database.db.selectFrom('id_worker_leases').selectAll().orderBy('worker').execute()

  test('processes starting at once get numbers of their own; killed ones are taken again after their lease', async () => {
    const first = await Promise.all(Array.from({ length: 10 }, claimer))
    const workers = first.map((c) => c.worker).sort((a, b) => a - b)
    expect(workers).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    const issued = first.flatMap((c) => c.ids)
    expect(new Set(issued).size).toBe(10 * IDS_EACH)
    for (const c of first) for (const id of c.ids) expect(partsOf(id).worker).toBe(c.worker)

    // Half of them crash: their numbers stay leased until their leases run out.
    const killed = first.filter((c) => c.worker % 2 === 0)
    await Promise.all(killed.map(kill))
    // A claim at once (here, not in a process: starting one takes seconds on a busy machine) finds
    // them taken still.
    const early = testDatabase.reopen()
    await early.ids.lease()
    expect(early.ids.worker).toBe(10)
    let ends = new Map<number, number>()
    await vi.waitFor(
      async () => {
        ends = new Map((await leases()).map((row) => [row.worker, row.expires]))
        const now = Date.now()
        for (const c of killed) expect(ends.get(c.worker)).toBeLessThanOrEqual(now)
      },
      { timeout: 3 * LEASE_MS, interval: 100 },
    )

    const second = await Promise.all(killed.map(claimer))
    expect(second.map((c) => c.worker).sort((a, b) => a - b)).toEqual([0, 2, 4, 6, 8])
    for (const c of second) {
      const before = killed.find((k) => k.worker === c.worker) as Claimer
      // Its IDs start where the killed holder's lease ended, after all the killed one issued.
      const lastBefore = Math.max(...before.ids.map(Number))
      expect(Math.min(...c.ids.map(Number))).toBeGreaterThan(lastBefore)
      expect(partsOf(c.ids[0] as string).ms).toBeGreaterThanOrEqual(ends.get(c.worker) as number)
    }
    const all = [...first, ...second].flatMap((c) => c.ids)
    expect(new Set(all).size).toBe(all.length)
    for (const id of all) expect(Number(id)).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER)

    // The living ones give their numbers back as they close.
    await early.close()
    const living = [...first.filter((c) => !killed.includes(c)), ...second]
    await Promise.all(
      living.map(({ child }) => {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.stdin?.end()
        return exited
      }),
    )
    const now = Date.now()
    for (const row of await leases()) expect(row.expires).toBeLessThanOrEqual(now + 50)
  }, 90_000) // 15 processes on two cores
})
