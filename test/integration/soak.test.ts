import { expect, test } from 'vitest'
import { postgresRestart, redisRestart, terminationStorm } from '../soak/faults.js'
import { formatRows, soak } from '../soak/soak.js'

// The short version of `npm run soak` (docs/operations/soak.md): its own PostgreSQL cluster,
// Redis, S3 store and two instances behind HAProxy, under the mixed load, through a termination
// storm and a restart of PostgreSQL and of Redis. Nothing may die, be lost or come twice, and every
// failed answer is a 503.

const enabled = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL)

test.skipIf(!enabled)(
  'the short soak: a termination storm, PostgreSQL and Redis restarted, under the mixed load',
  async () => {
    const rows = await soak({
      instances: 2,
      faults: [terminationStorm(15), postgresRestart, redisRestart],
      phaseSeconds: 20,
    })
    console.log(formatRows(rows))
    for (const row of rows) {
      expect({ fault: row.fault, died: row.died, lost: row.lost, duplicates: row.duplicates }).toEqual({
        fault: row.fault,
        died: [],
        lost: 0,
        duplicates: 0,
      })
      expect([row.fault, row.unexpected5xx, row.readySeconds < 60]).toEqual([row.fault, 0, true])
      // The load went on through each fault: every kind of write was acknowledged in it.
      expect(Math.min(row.acknowledged.chat, row.acknowledged.case, row.acknowledged.upload)).toBeGreaterThan(
        0,
      )
    }
  },
  300_000, // a deployment of its own (initdb included) and a minute of faults, on a busy 2-core machine
)
