import pg from 'pg'
import { type Figures, load, printTable, startService } from './lib.js'
import { benchTicket } from './ticket.bench.js'

// `npm run bench`: each figure next to a bare Fastify route measured in the same run.
// PostgreSQL scenarios use BENCH_DATABASE_URL, else DATABASE_URL, else the local server.

const postgresURL =
  process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: postgresURL })
  try {
    await client.connect()
    await client.end()
    return true
  } catch {
    return false
  }
}

async function bare(): Promise<Figures> {
  const service = await startService(['--import', 'tsx', 'bench/bare-server.ts'], {})
  try {
    return await load('bare Fastify route (baseline)', {
      url: `${service.url}/bare`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ xcUserID: 'bench-user' }),
    })
  } finally {
    await service.stop()
  }
}

const rows: Figures[] = []
const baseline = await bare()
rows.push(baseline)
rows.push(await benchTicket('SQLite'))
if (await postgresReachable()) rows.push(await benchTicket('PostgreSQL', postgresURL))
else console.log(`PostgreSQL scenarios skipped: ${postgresURL} is not reachable`)
console.log(`\n${rows.length} scenarios, ${50} connections, ${process.env.BENCH_DURATION ?? 10} s each\n`)
printTable(rows, baseline)
