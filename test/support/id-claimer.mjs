// Test-only: a process that opens the database as a Parley process does (the built code), leases an
// ID worker number with the lease given, issues IDs, and prints one JSON line: its worker number and
// IDs. Then it holds its lease (renewing it) until its stdin ends, when it closes the database (giving
// the number back), or until it is killed (then the lease runs out by itself).
// node test/support/id-claimer.mjs <dataDir> <databaseURL or ''> <leaseMs> <IDs to issue>
import { openDatabase } from '../../dist/storage/database.js'

const [dataDir, databaseURL, leaseMs, count] = process.argv.slice(2)
const database = openDatabase({ dataDir, databaseURL: databaseURL || undefined })
const lease = Number(leaseMs)
await database.ids.lease({ leaseMs: lease, renewMs: Math.floor(lease / 3), retryMs: 50 })
const ids = Array.from({ length: Number(count) }, () => database.ids.next())
process.stdout.write(`${JSON.stringify({ worker: database.ids.worker, ids })}\n`)
process.stdin.resume()
process.stdin.on('end', async () => {
  await database.close()
  process.exit(0)
})
