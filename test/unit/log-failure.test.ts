import { connect, createServer } from 'node:net'
import { DatabaseError } from 'pg'
import { describe, expect, test } from 'vitest'
import type { ScheduledMessages } from '../../src/domain/scheduled/scheduled.service.js'
import { ScheduledSender } from '../../src/domain/scheduled/scheduled-sender.js'
import { logFailure } from '../../src/errors/faults.js'
import { eventually } from '../support/poll.js'

// Work a process does by itself (its rounds) meets the database's outages like any request: they
// are weather, retried by the next round, and logged as warnings; only what is not one is an error.

const recordingLog = () => {
  const lines: { level: 'warn' | 'error'; message: string }[] = []
  return {
    lines,
    warn: (_: object, message: string) => lines.push({ level: 'warn', message }),
    error: (_: object, message: string) => lines.push({ level: 'error', message }),
  }
}

/** PostgreSQL ending a connection on the operator's word (a restart, pg_terminate_backend). */
const terminated = () => {
  const error = new DatabaseError('terminating connection due to administrator command', 116, 'error')
  error.code = '57P01'
  return error
}

/** A real refused connection: a port that was just listening and no longer is. */
async function refusedConnection(): Promise<Error> {
  const server = createServer().listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  const socket = connect(port, '127.0.0.1')
  return new Promise((resolve) => socket.once('error', resolve))
}

describe('failures of background work', () => {
  test('an outage is a warning; anything else an error', async () => {
    const log = recordingLog()
    logFailure(log, terminated(), 'terminated')
    logFailure(log, await refusedConnection(), 'refused')
    logFailure(log, new TypeError("cannot read properties of undefined (reading 'id')"), 'a bug')
    expect(log.lines).toEqual([
      { level: 'warn', message: 'terminated' },
      { level: 'warn', message: 'refused' },
      { level: 'error', message: 'a bug' },
    ])
  })

  test("a scheduled messages' round that meets a terminated connection logs a warning", async () => {
    const log = recordingLog()
    const scheduled = { claim: () => Promise.reject(terminated()) } as unknown as ScheduledMessages
    const sender = new ScheduledSender(scheduled, log, 60_000)
    sender.start()
    await eventually(() => log.lines.length > 0, 'the first round')
    await sender.stop()
    expect(log.lines).toEqual([{ level: 'warn', message: 'scheduled messages: round failed' }])
  })
})
