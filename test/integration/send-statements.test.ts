import { sql } from 'kysely'
import { describe, expect, test } from 'vitest'
import { findMessages } from '../../src/domain/messages/messages.repository.js'
import { type StoreInRoom, storeInRooms } from '../../src/domain/messages/store-in-room.js'
import { messageRow, newMessage } from '../../src/domain/messages/store-message.js'
import { readRoom } from '../../src/domain/rooms/room-read.repository.js'
import { type Database, openDatabase } from '../../src/storage/database.js'
import { type TestServer, useServer } from '../support/app.js'
import { openCase } from '../support/cases.js'
import { createOrganization, roomHistory, type TestClient } from '../support/clients.js'
import { describeEachDatabase, pooled, postgresURL } from '../support/databases.js'
import { recordStatements } from '../support/statements.js'

// What a message costs the database (issue 21). On PostgreSQL a message to a room that is open
// already is one statement, one round trip: stored and its room read together (store-in-room.ts);
// messages sent while the database is busy with others share one statement and one commit.
// A chat room's message goes to no search index: only cases' messages are searched (case search).

describeEachDatabase('statements per message', (dialect) => {
  const server = useServer(dialect)

  test('a message to an open room is one statement on PostgreSQL, two in one commit on SQLite', async () => {
    const org = await createOrganization(server())
    const alice = await org.signIn('alice')
    const bob = await org.signIn('bob')
    const send = (localID: string) =>
      alice.call('/v1/chat/message/send', { recipientUserID: bob.userID, localID, type: 1001, body: 'hi' })
    expect((await send('opens-the-room')).status).toBe(200)

    const recording = recordStatements()
    const sent = await send('second')
    const statements = recording.stop()
    expect(sent.status).toBe(200)
    if (dialect === 'postgres') {
      expect(statements).toHaveLength(1)
      expect(statements[0]).toMatch(/^\s*with input as materialized \(\s*select \* from unnest\(/)
    } else {
      // The room's bump and the message in one transaction; the room read is kept from the
      // first message's (domain/rooms/kept-reads.ts).
      expect(statements.map((text) => text.split(/\s/)[0])).toEqual(['update', 'insert'])
    }
    expect(statements.join('\n')).not.toContain('message_search')
  })

  test("a visitor's case message reads no user (its room read brings theirs), nor endpoints nobody has", async () => {
    const org = await createOrganization(server())
    const visitor = await org.signIn('visitor')
    const opened = await openCase(visitor, 'first')
    const recording = recordStatements()
    const sent = await visitor.call('/api/visitor/v1/client/case/send_message', {
      id: opened.caseID,
      localID: 'second',
      messageType: 'text',
      text: { body: 'second' },
    })
    const statements = recording.stop()
    expect(sent.status).toBe(200)
    expect(sent.json.data.message.user.userID).toBe(visitor.userID)
    expect(statements.filter((text) => /^\s*select \* from "users"/.test(text))).toEqual([])
    // The organization has no event endpoint, as the case's first message found (within a second).
    expect(statements.filter((text) => text.includes('"event_endpoints"'))).toEqual([])
  })
})

/** Alice, Bob and Carol; Alice and Carol have written to Bob; Bob and Carol share a group. */
async function threeUsers(server: TestServer) {
  const org = await createOrganization(server)
  const [alice, bob, carol] = (await Promise.all(['alice', 'bob', 'carol'].map(org.signIn))) as TestClient[]
  const roomOf = async (from: TestClient, to: TestClient) => {
    const sent = await from.call('/v1/chat/message/send', {
      recipientUserID: to.userID,
      localID: 'opens-the-room',
      type: 1001,
      body: 'hello',
    })
    return sent.json.data.message.roomID as string
  }
  const group = await (bob as TestClient).call('/v1/client/room/create', {
    name: 'Bob and Carol',
    type: 2,
    userIDs: [(carol as TestClient).userID],
  })
  return {
    org,
    alice: alice as TestClient,
    bob: bob as TestClient,
    carol: carol as TestClient,
    aliceBob: await roomOf(alice as TestClient, bob as TestClient),
    carolBob: await roomOf(carol as TestClient, bob as TestClient),
    bobCarol: group.json.data.room.roomID as string,
  }
}

/** What storeInRooms takes for `from` writing `localID` (its body too) to `to` in `roomID` at `now`. */
const storeOf =
  (database: Database, organizationID: string) =>
  (from: TestClient, to: TestClient, roomID: string, localID: string, now: number): StoreInRoom => ({
    row: messageRow(
      newMessage(
        database.ids.next(),
        now,
        { roomID, senderID: from.userID },
        { localID },
        {
          type: 1001,
          body: localID,
          data: {},
        },
      ),
    ).row,
    organizationID,
    recipientUserID: to.userID,
  })

describeEachDatabase('messages sent at once', (dialect) => {
  const server = useServer(dialect)

  test('each is stored once, in strictly increasing order per room; a retry answers its message; a refused one fails alone', async () => {
    const { alice, bob, carol, aliceBob, carolBob, bobCarol } = await threeUsers(server())
    const send = (from: TestClient, localID: string, to: Record<string, string>) =>
      from.call('/v1/chat/message/send', { ...to, localID, type: 1001, body: `${localID} says hi` })
    const toBob = { recipientUserID: bob.userID }
    const sends = [
      ...Array.from({ length: 30 }, (_, i) => () => send(alice, `a${i}`, toBob)),
      ...Array.from({ length: 30 }, (_, i) => () => send(carol, `c${i}`, toBob)),
      ...Array.from({ length: 5 }, (_, i) => () => send(alice, `a${i}`, toBob)),
      () => send(alice, 'not-a-member', { roomID: bobCarol }),
    ]
    const recording = recordStatements()
    const replies = await Promise.all(sends.map((run) => run()))
    const statements = recording.stop()

    expect(replies.slice(0, 65).map((reply) => reply.status)).toEqual(Array(65).fill(200))
    expect(replies[65]?.status).toBe(403)
    const idOf = (i: number) => replies[i]?.json.data.message.messageID
    expect([60, 61, 62, 63, 64].map(idOf)).toEqual([0, 1, 2, 3, 4].map(idOf))
    for (const [roomID, sender] of [
      [aliceBob, 'a'],
      [carolBob, 'c'],
    ] as const) {
      const history = await roomHistory(bob, roomID)
      const localIDs = history.map((message) => message.localID).slice(1)
      expect(localIDs.sort()).toEqual(Array.from({ length: 30 }, (_, i) => `${sender}${i}`).sort())
      const created = history.map((message) => message.created)
      expect(created.every((value, i) => i === 0 || value > (created[i - 1] as number))).toBe(true)
    }
    expect((await roomHistory(bob, bobCarol)).length).toBe(0)
    if (dialect === 'postgres') {
      // Sixty-five sends to open rooms: some shared statements (one each before).
      const stores = statements.filter((text) => /insert into "?messages"?/.test(text))
      expect(stores.length).toBeGreaterThan(0)
      expect(stores.length).toBeLessThan(65)
    }
  })
})

describe.skipIf(!postgresURL)('sends in one statement [postgres]', () => {
  const server = useServer('postgres')

  test("each message is its room's next in the order given, as if sent one after the other", async () => {
    const { alice, bob, carol, aliceBob, carolBob, bobCarol } = await threeUsers(server())
    const { database } = server().testDatabase
    const { db } = database
    const lastOf = async (roomID: string) => (await readRoom(db, roomID))?.room.last_message_created as number
    const [last, otherLast] = [await lastOf(aliceBob), await lastOf(carolBob)]
    const organizationID = (await readRoom(db, aliceBob))?.room.organization_id as string
    const store = storeOf(database, organizationID)
    const results = await storeInRooms(db, [
      store(alice, bob, aliceBob, 'ahead', last + 1000),
      store(carol, bob, carolBob, 'behind', otherLast - 1),
      store(alice, bob, aliceBob, 'late', last - 5000),
      store(alice, bob, aliceBob, 'same time', last + 1000),
      store(alice, carol, bobCarol, 'not a member', last),
      store(alice, bob, aliceBob, 'later', last + 2000),
      store(alice, bob, aliceBob, 'ahead', last + 3000),
    ])
    expect(results.map((result) => result.stored?.created)).toEqual([
      last + 1000,
      otherLast + 1,
      last + 1001,
      last + 1002,
      undefined,
      last + 2000,
      undefined,
    ])
    // Each message stored is answered as the table holds it, every column (those a send leaves
    // to their defaults too) and nothing more.
    const stored = results.flatMap((result) => (result.stored ? [result.stored] : []))
    const byID = (rows: readonly { id: string }[]) => new Map(rows.map((row) => [row.id, row]))
    expect(byID(stored)).toEqual(byID(await findMessages(db, [...byID(stored).keys()])))
    // Each read is its room's, with the newest `created` as of its own message.
    expect(results.map((result) => result.read?.room.id)).toEqual([
      aliceBob,
      carolBob,
      aliceBob,
      aliceBob,
      bobCarol,
      aliceBob,
      aliceBob,
    ])
    expect(results[2]?.read?.room.last_message_created).toBe(last + 1001)
    expect(results[2]?.read?.users.map((user) => user.id).sort()).toEqual([alice.userID, bob.userID].sort())
    // The repeated localID stored nothing, and the room's newest is its newest message again.
    expect(await lastOf(aliceBob)).toBe(last + 2000)
    expect(await lastOf(carolBob)).toBe(otherLast + 1)
  })

  // Planning this statement took PostgreSQL twice as long as running it (docs/benchmarks.md): a
  // named statement is planned again on every run unless its plan for any values looks cheaper.
  test.skipIf(pooled)(
    'PostgreSQL plans it on its first runs on a connection, not on every send',
    async () => {
      const { alice, bob, aliceBob } = await threeUsers(server())
      const { testDatabase } = server()
      const { database } = testDatabase
      const store = storeOf(database, (await readRoom(database.db, aliceBob))?.room.organization_id as string)
      // One connection, so that the statement and the look at it share it.
      const handle = openDatabase({
        dataDir: testDatabase.dataDir,
        databaseURL: testDatabase.databaseURL,
        postgres: { poolMax: 1, workerPoolMax: 1, namedStatements: true },
      })
      try {
        // PostgreSQL's own choice between the two plans (a server may be set to force one).
        await sql`set plan_cache_mode = auto`.execute(handle.db)
        for (let run = 0; run < 9; run++) {
          const sends = Array.from({ length: 1 + (run % 3) }, (_, i) =>
            store(alice, bob, aliceBob, `planned-${run}-${i}`, Date.now()),
          )
          const results = await storeInRooms(handle.db, sends)
          expect(results.every((result) => result.stored !== undefined)).toBe(true)
        }
        const plans = await sql<{ generic_plans: string; custom_plans: string }>`
        select generic_plans, custom_plans from pg_prepared_statements
        where statement like '%with input as materialized%'`.execute(handle.db)
        // The first five runs are planned for their values (PostgreSQL's rule), the rest reuse one
        // plan (made again only if something, an ANALYZE say, invalidated it meanwhile).
        const [counts] = plans.rows.map((row) => ({
          custom: Number(row.custom_plans),
          generic: Number(row.generic_plans),
        }))
        expect(counts).toEqual({ custom: 5, generic: 4 })
      } finally {
        await handle.close()
      }
    },
  )
})
