import { type Migration, sql } from 'kysely'
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest'
import { isAppError } from '../../src/errors/app-error.js'
import { WORKERS } from '../../src/lib/ids.js'
import type { Database } from '../../src/storage/database.js'
import type { LeaseTimings } from '../../src/storage/id-workers.js'
import { migrations } from '../../src/storage/migrations/index.js'
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../support/databases.js'
import { partsOf } from '../support/ids.js'

// Worker numbers are leased from the database (storage/id-workers.ts): each handle on one database
// (a process: the server, a CLI run) issues IDs as a worker number no other holder has, and stops
// issuing when it cannot keep its lease. Each test opens handles of its own, as processes would.

const SHORT: Partial<LeaseTimings> = { leaseMs: 300, renewMs: 100, retryMs: 50 }

describeEachDatabase('ID worker leases', (dialect) => {
  let testDatabase: TestDatabase
  const handles: Database[] = []
  const open = () => {
    const handle = testDatabase.reopen()
    handles.push(handle)
    return handle
  }
  const unavailable = (handle: Database) => {
    try {
      handle.ids.next()
      return false
    } catch (error) {
      if (isAppError(error) && error.kind === 'unavailable') return true
      throw error
    }
  }
  const rows = () =>
    testDatabase.database.db.selectFrom('id_worker_leases').selectAll().orderBy('worker').execute()

  beforeAll(async () => {
    testDatabase = await createTestDatabase(dialect)
  })
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((handle) => handle.close()))
    await testDatabase.database.db.deleteFrom('id_worker_leases').execute()
  })
  afterAll(async () => {
    await testDatabase.drop()
  })

  test('no IDs before the lease', () => {
    expect(unavailable(open())).toBe(true)
  })

  test('handles leasing in one database at once get different workers, and their IDs differ', async () => {
    const many = Array.from({ length: 8 }, open)
    await Promise.all(many.map((handle) => handle.ids.lease()))
    const workers = many.map((handle) => handle.ids.worker)
    expect([...workers].sort((a, b) => (a as number) - (b as number))).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    const ids = many.flatMap((handle) => Array.from({ length: 100 }, () => handle.ids.next()))
    expect(new Set(ids).size).toBe(800)
    for (const [i, handle] of many.entries()) {
      expect(partsOf(ids[i * 100] as string).worker).toBe(handle.ids.worker)
    }
    const holders = new Map(many.map((handle) => [handle.ids.worker, handle.ids.holder]))
    for (const row of await rows()) expect(row.holder).toBe(holders.get(row.worker))
  })

  test('a closed handle gives its worker back; the next holder starts after its last ID', async () => {
    const first = open()
    await first.ids.lease()
    const worker = first.ids.worker
    // A busy issuer borrows milliseconds ahead of the clock.
    const issued = Array.from({ length: 1000 }, () => first.ids.next())
    await first.close()
    expect(unavailable(first)).toBe(true)
    const [row] = await rows()
    const end = partsOf(issued.at(-1) as string).ms + 1
    expect(row?.expires).toBe(end)
    // Free once the clock reaches the end of the last ID's millisecond (not the lease's minutes).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, end - Date.now() + 1)))
    const second = open()
    await second.ids.lease()
    expect(second.ids.worker).toBe(worker)
    expect((await rows())[0]?.floor).toBe(end)
    expect(Number(second.ids.next())).toBeGreaterThan(Number(issued.at(-1)))
  })

  test('an expired lease is reclaimed; its holder stops issuing, then leases another worker', async () => {
    const stale = open()
    // It renews too late: the lease ends after 200 ms, renewal comes after 1 s.
    await stale.ids.lease({ leaseMs: 200, renewMs: 1000, retryMs: 50 })
    const last = stale.ids.next()
    await vi.waitFor(() => expect(unavailable(stale)).toBe(true), { timeout: 2000 })
    const [lapsed] = await rows()
    const taker = open()
    await taker.ids.lease()
    expect(taker.ids.worker).toBe(stale.ids.worker)
    const [row] = await rows()
    // The taker's IDs begin where the lapsed lease ended.
    expect(row).toMatchObject({ holder: taker.ids.holder, floor: lapsed?.expires })
    const first = taker.ids.next()
    expect(partsOf(first).ms).toBeGreaterThanOrEqual(lapsed?.expires as number)
    expect(Number(first)).toBeGreaterThan(Number(last))
    // The stale holder finds at its renewal that the worker is no longer its own, and leases another.
    await vi.waitFor(() => expect(stale.ids.worker).not.toBe(taker.ids.worker), { timeout: 3000 })
    await vi.waitFor(() => expect(unavailable(stale)).toBe(false), { timeout: 3000 })
    expect(partsOf(stale.ids.next()).worker).toBe(stale.ids.worker)
  })

  test(`with all ${WORKERS} workers leased, leasing fails with a clear error; an expired one is taken`, async () => {
    const now = Date.now()
    await testDatabase.database.db
      .insertInto('id_worker_leases')
      .values(
        Array.from({ length: WORKERS }, (_, worker) => ({
          worker,
          holder: `other ${worker}`,
          expires: now + 60_000,
          floor: 0,
        })),
      )
      .execute()
    const late = open()
    const refused = await late.ids.lease().catch((error: unknown) => error)
    expect(isAppError(refused) && refused.kind).toBe('unavailable')
    expect((refused as Error).message).toMatch(/^No ID worker number is free: all 512 are leased/)
    expect(unavailable(late)).toBe(true)
    await testDatabase.database.db
      .updateTable('id_worker_leases')
      .set({ expires: now - 1 })
      .where('worker', '=', 41)
      .execute()
    await late.ids.lease()
    expect(late.ids.worker).toBe(41)
    // It starts after the old lease's end.
    expect(partsOf(late.ids.next()).ms).toBeGreaterThanOrEqual(now - 1)
  })

  test('0026 hands each lease of the 64 old numbers on to the 8 new numbers that share its bits', async () => {
    const { db } = testDatabase.database
    // The table as it was before (0009_id_workers), with two old leases.
    await db.schema.dropTable('id_worker_leases').execute()
    await sql`create table id_workers (worker integer primary key, holder text not null,
      expires bigint not null, floor bigint not null)`.execute(db)
    await sql`insert into id_workers values (3, 'old a', 1000, 10), (63, 'old b', 2000, 20)`.execute(db)
    await (migrations['0026_id_worker_leases'] as Migration).up(db)
    const expanded = (first: number, holder: string, expires: number, floor: number) =>
      Array.from({ length: 8 }, (_, k) => ({ worker: first + k, holder, expires, floor }))
    expect(await rows()).toEqual([...expanded(24, 'old a', 1000, 10), ...expanded(504, 'old b', 2000, 20)])
    // An old process can renew nothing: its table is gone.
    await expect(sql`select 1 from id_workers`.execute(db)).rejects.toThrow()
  })

  test('a lease the database cannot renew stops issuance before it runs out; renewed, it resumes', async () => {
    const holder = open()
    await holder.ids.lease(SHORT)
    const worker = holder.ids.worker
    holder.ids.next()
    // The table is out of reach: every renewal fails (as when the database is down).
    await sql`alter table id_worker_leases rename to id_worker_leases_away`.execute(testDatabase.database.db)
    try {
      await vi.waitFor(() => expect(unavailable(holder)).toBe(true), { timeout: 3000 })
      const refused = (() => {
        try {
          holder.ids.next()
        } catch (error) {
          return error as Error
        }
      })()
      expect(refused?.message).toBe(
        `IDs are unavailable: the lease of ID worker ${worker} ran out before the database renewed it`,
      )
    } finally {
      await sql`alter table id_worker_leases_away rename to id_worker_leases`.execute(
        testDatabase.database.db,
      )
    }
    // Nobody took the worker meanwhile: the next renewal succeeds, and issuance resumes.
    await vi.waitFor(() => expect(unavailable(holder)).toBe(false), { timeout: 3000 })
    expect(holder.ids.worker).toBe(worker)
  })
})
