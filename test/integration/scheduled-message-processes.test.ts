import { afterEach, describe, expect, test } from 'vitest'
import { SEND_LEASE_MS } from '../../src/domain/scheduled/scheduled.service.js'
import { send } from '../support/app.js'
import { postgresURL } from '../support/databases.js'
import { type Deployed, Deployment } from '../support/deployment.js'
import { eventually } from '../support/poll.js'
import { startServerProcess } from '../support/processes.js'

// Scheduled messages across real server processes on PostgreSQL and Redis: due while two
// instances run, and due while the instance sending them is killed. These wait for the real
// clock (the messages are due a second or two ahead) and, after the kill, for the lease to lapse.

const COUNT = 30

let deployment: Deployment | undefined
afterEach(async () => {
  await deployment?.stop()
  deployment = undefined
})

const call = (url: string, who: Deployed, path: string, body: unknown) =>
  send(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${who.accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

/**
 * A group of two, and COUNT messages ann schedules in it at once, due `inMs` from now (time enough
 * for the creates on a busy machine: a time already past is refused).
 */
async function scheduleMany(on: Deployment, inMs: number) {
  const url = on.urls[0] as string
  const ann = await on.signIn('ann', url)
  const bob = await on.signIn('bob', url)
  const room = await call(url, ann, '/v1/client/room/create', { name: 'Due', type: 2, userIDs: [bob.userID] })
  const roomID = room.json.data.room.roomID as string
  const scheduledTime = Date.now() + inMs
  const replies = await Promise.all(
    Array.from({ length: COUNT }, (_, i) =>
      call(on.urls[i % on.urls.length] as string, ann, '/v1/chat/scheduled_message/create', {
        message: { roomID, localID: `due-${i}`, type: 1001, body: `due ${i}` },
        scheduledTime,
      }),
    ),
  )
  expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 200))
  return { roomID }
}

/** How many messages each scheduled localID became, and how many are still pending. */
async function outcome(on: Deployment, roomID: string) {
  const sent = await on.query<{ local_id: string; n: string }>(
    'select local_id, count(*) as n from messages where room_id = $1 group by local_id',
    [roomID],
  )
  const [pending] = await on.query<{ n: string }>(
    "select count(*) as n from scheduled_messages where room_id = $1 and status = 'pending'",
    [roomID],
  )
  return { sent, pending: Number(pending?.n) }
}

describe.skipIf(!postgresURL)('scheduled messages across processes (PostgreSQL + Redis)', () => {
  test('due while two instances run: each is sent once', async () => {
    deployment = await Deployment.start(2)
    const { roomID } = await scheduleMany(deployment, 5000)
    const on = deployment
    await eventually(async () => (await outcome(on, roomID)).pending === 0, 'every one sent', 20_000, 100)
    const { sent } = await outcome(on, roomID)
    expect(sent).toHaveLength(COUNT)
    for (const row of sent) expect(Number(row.n), row.local_id).toBe(1)
  }, 60_000)

  test('due while the instance sending them is killed (SIGKILL): each is still sent once', async () => {
    deployment = await Deployment.start(1)
    const { roomID } = await scheduleMany(deployment, 5000)
    const on = deployment
    const first = on.instances[0]
    // Killed as soon as it has sent the first: the rest of its round are leased and unsent.
    await eventually(async () => (await outcome(on, roomID)).sent.length > 0, 'a first one sent', 20_000, 5)
    first?.child.kill('SIGKILL')
    await first?.exited
    const before = await outcome(on, roomID)
    on.instances.push(await startServerProcess(on.env))
    await eventually(
      async () => (await outcome(on, roomID)).pending === 0,
      'the rest sent after the lease lapsed',
      SEND_LEASE_MS + 20_000,
      100,
    )
    const { sent } = await outcome(on, roomID)
    expect(before.pending).toBeGreaterThan(0)
    expect(sent).toHaveLength(COUNT)
    for (const row of sent) expect(Number(row.n), row.local_id).toBe(1)
  }, 90_000)
})
