import { expect, test } from 'vitest'
import { composeID, ID_EPOCH, IDGenerator, LAST_ID_MS, WORKERS } from '../../src/lib/ids.js'
import { useServer } from '../support/app.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { partsOf } from '../support/ids.js'

// IDs are decimal strings of at most 2^53 − 1, so that JavaScript clients parsing them as numbers
// stay exact (docs/reference/client-api.md), time-sortable; IDs issued before, 64-bit ones, keep working (lib/ids.ts).

const exact = (id: string) => Number.isSafeInteger(Number(id)) && String(Number(id)) === id

test('IDs are exact JavaScript numbers and increase, also past 8 in one millisecond (borrowing the next)', () => {
  const generator = new IDGenerator()
  generator.start(5, 0)
  const now = Date.now()
  const ids = Array.from({ length: 200 }, () => generator.next(now, Number.POSITIVE_INFINITY) as string)
  for (const id of ids) expect(exact(id), id).toBe(true)
  const numbers = ids.map(Number)
  for (let i = 1; i < numbers.length; i++) expect(numbers[i]).toBeGreaterThan(numbers[i - 1] as number)
  expect(ids.map(partsOf).slice(6, 10)).toEqual([
    { ms: now, worker: 5, sequence: 6 },
    { ms: now, worker: 5, sequence: 7 },
    { ms: now + 1, worker: 5, sequence: 0 },
    { ms: now + 1, worker: 5, sequence: 1 },
  ])
  expect(generator.issuedBefore).toBe(now + 25)
})

test('the last ID is 2^53 − 1 (in 2095); past it the generator refuses rather than overflow', () => {
  expect(new Date(LAST_ID_MS).getUTCFullYear()).toBe(2095)
  const generator = new IDGenerator()
  generator.start(WORKERS - 1, LAST_ID_MS)
  let last = ''
  for (let i = 0; i < 8; i++) last = generator.next(LAST_ID_MS, Number.POSITIVE_INFINITY) as string
  expect(last).toBe(String(Number.MAX_SAFE_INTEGER))
  expect(() => generator.next(LAST_ID_MS, Number.POSITIVE_INFINITY)).toThrow(RangeError)
})

test("512 worker numbers; an old 6-bit worker w's IDs are those of new workers 8w to 8w + 7", () => {
  expect(WORKERS).toBe(512)
  const ms = Date.UTC(2026, 10, 28)
  // The layout before: 41 bits of time, 6 of worker, 6 of sequence.
  const old = (worker: number, sequence: number) => (ms - ID_EPOCH) * 4096 + worker * 64 + sequence
  for (const [worker, sequence] of [
    [0, 0],
    [5, 9],
    [63, 63],
  ] as const) {
    expect(composeID(ms, worker * 8 + (sequence >> 3), sequence & 7)).toBe(old(worker, sequence))
  }
  expect(composeID(LAST_ID_MS, WORKERS - 1, 7)).toBe(Number.MAX_SAFE_INTEGER)
})

test("a worker's IDs start at its floor, and none is issued at or past the lease's end", () => {
  const generator = new IDGenerator()
  const now = Date.now()
  // The previous holder of worker 9 stopped 50 ms ahead of this clock (it had borrowed ahead).
  generator.start(9, now + 50)
  expect(partsOf(generator.next(now, now + 60) as string)).toEqual({ ms: now + 50, worker: 9, sequence: 0 })
  expect(generator.next(now + 60, now + 60)).toBeUndefined()
  // Refusing used nothing up: the next one allowed follows on.
  expect(partsOf(generator.next(now, now + 60) as string)).toEqual({ ms: now + 50, worker: 9, sequence: 1 })
})

describeEachDatabase('IDs', (dialect) => {
  const server = useServer(dialect)

  test('the IDs the API hands out are at most 2^53 − 1', async () => {
    const acme = await createOrganization(server(), 'Acme')
    const [alice, bob] = [await acme.signIn('alice'), await acme.signIn('bob')]
    const ids = [acme.organizationID, acme.serverKeyID, alice.userID, bob.userID]
    const sent = await alice.call('/v1/chat/message/send', {
      recipientUserID: bob.userID,
      localID: 'hi-1',
      type: 1001,
      body: 'hi',
    })
    ids.push(sent.json.data.message.messageID)
    for (const id of ids) {
      expect(exact(id), id).toBe(true)
      expect(Number(id)).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER)
    }
    // Issued by this server's leased worker.
    expect(new Set(ids.map((id) => partsOf(id).worker))).toEqual(
      new Set([server().testDatabase.database.ids.worker]),
    )
  })

  test('a user with an old 64-bit ID is found, chatted with, and listed in time order beside new ones', async () => {
    const { database } = server().testDatabase
    const acme = await createOrganization(server(), 'Old and new')
    const newcomer = await acme.signIn('newcomer')
    const now = server().clock.now()
    // Rows written before this release: 18-digit IDs, larger than any new one as numbers, and
    // after one as text (a 15-digit new ID starting with 1).
    const oldUserID = '382473062971936768'
    const oldOrganizationID = '382473032863301632'
    await database.db
      .insertInto('organizations')
      .values({ id: oldOrganizationID, name: 'Older', created: now - 60_000, updated: now - 60_000 })
      .execute()
    await database.db
      .insertInto('users')
      .values({
        id: oldUserID,
        organization_id: acme.organizationID,
        xc_user_id: 'old-timer',
        full_name: 'Old Timer',
        created: now - 60_000,
        updated: now - 60_000,
      })
      .execute()
    const found = await newcomer.call('/v1/client/user/get_by_id', { id: oldUserID })
    expect(found.json.data.user).toMatchObject({ userID: oldUserID, xcUserID: 'old-timer' })
    // The personal room compares the two as numbers: the new (smaller) ID first.
    const sent = await newcomer.call('/v1/chat/message/send', {
      recipientUserID: oldUserID,
      localID: 'hello-old',
      type: 1001,
      body: 'hello',
    })
    expect(sent.json.data.message.roomID).toBe(`${newcomer.userID}-${oldUserID}`)
    const history = await newcomer.call('/v1/chat/message/list_by_room/before', {
      roomID: sent.json.data.message.roomID,
    })
    expect(history.json.data.messages.map((m: { body: string }) => m.body)).toEqual(['hello'])
    // Oldest first, by time: the old organization before the new ones, whatever their IDs.
    const listed = (await server().app.services.organizations.list()).map((o) => o.organizationID)
    expect(listed.indexOf(oldOrganizationID)).toBe(0)
    expect(listed.indexOf(acme.organizationID)).toBeGreaterThan(0)
    expect(oldOrganizationID > acme.organizationID).toBe(true)
  })

  test('an old key pair is listed before a newer one of the same organization', async () => {
    const { database } = server().testDatabase
    const acme = await createOrganization(server(), 'Keys')
    const oldKeyID = '382473032863309999'
    await database.db
      .insertInto('server_keys')
      .values({
        id: oldKeyID,
        organization_id: acme.organizationID,
        secret_hash: 'x',
        created: server().clock.now() - 1000,
        revoked_at: null,
      })
      .execute()
    const listed = await server().app.services.serverKeys.list(operator, acme.organizationID)
    expect(listed.map((key) => key.serverKeyID)).toEqual([oldKeyID, acme.serverKeyID])
  })
})
