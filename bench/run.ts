import pg from 'pg'
import { benchAbuse, printAbuse } from './abuse.bench.js'
import { benchDelivery, printDelivery } from './delivery.bench.js'
import { benchHistory } from './history.bench.js'
import { benchInstances, instanceCounts, printInstances } from './instances.bench.js'
import { type Figures, load, printTable, startService } from './lib.js'
import { benchBuilds, printBuilds } from './realtime/builds.bench.js'
import { benchAgainstSocketIO, benchRealtime, benchRelay, printRealtime } from './realtime/realtime.bench.js'
import { benchReports, printReports } from './reports.bench.js'
import { benchScale, printScale } from './scale.bench.js'
import { benchSearch, printSearch } from './search.bench.js'
import { benchStartup, printStartup } from './startup.bench.js'
import { benchTicket } from './ticket.bench.js'
import { benchUploads, printUploads } from './upload.bench.js'
import { benchWebhook } from './webhook.bench.js'

// `npm run bench`: each figure next to a baseline measured in the same run (a bare Fastify route
// for HTTP, a bare ws relay for real time, the bot itself for delivery).
// BENCH_ONLY=http|history|realtime|delivery|search|reports|upload|startup|abuse runs one part.
// PostgreSQL scenarios use BENCH_DATABASE_URL, else DATABASE_URL, else the local server.

const postgresURL =
  process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
// `npm run bench -- --scale`: only how costs grow with the data (see scale.bench.ts);
// `npm run bench -- --instances 1,2,4,8`: only how they grow with instances (instances.bench.ts);
// `npm run bench -- --builds`: only a send in the builds BENCH_PARLEY names (builds.bench.ts).
const only = process.argv.includes('--scale')
  ? 'scale'
  : process.argv.includes('--instances')
    ? 'instances'
    : process.argv.includes('--builds')
      ? 'builds'
      : process.env.BENCH_ONLY

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

if (!only || only === 'http') {
  const baseline = await bare()
  const rows: Figures[] = [baseline, await benchTicket('SQLite')]
  if (await postgresReachable()) rows.push(await benchTicket('PostgreSQL', postgresURL))
  else console.log(`PostgreSQL scenarios skipped: ${postgresURL} is not reachable`)
  rows.push(await benchWebhook())
  console.log(`\nHTTP: ${rows.length} scenarios, 50 connections, ${process.env.BENCH_DURATION ?? 10} s each`)
  printTable(rows, baseline)
}
if (!only || only === 'history') {
  const baseline = await bare()
  const rows: Figures[] = [
    baseline,
    await benchHistory('SQLite'),
    await benchHistory('SQLite', undefined, true),
  ]
  if (await postgresReachable())
    rows.push(
      await benchHistory('PostgreSQL', postgresURL),
      await benchHistory('PostgreSQL', postgresURL, true),
    )
  console.log(`\nHistory pages: 50 connections, ${process.env.BENCH_DURATION ?? 10} s each`)
  printTable(rows, baseline)
}
if (!only || only === 'realtime') {
  const rows = [await benchRelay('ws')]
  const { rows: inTurns, ratios } = await benchAgainstSocketIO()
  rows.push(...inTurns)
  if (await postgresReachable()) rows.push(await benchRealtime('PostgreSQL', postgresURL))
  else console.log(`PostgreSQL real time skipped: ${postgresURL} is not reachable`)
  printRealtime(rows, ratios)
}
if (!only || only === 'delivery' || only === 'events') {
  // BENCH_ONLY=events: the event endpoint alone.
  const targets = only === 'events' ? (['event endpoint'] as const) : (['chatbot', 'event endpoint'] as const)
  const rows = []
  for (const target of targets) rows.push(await benchDelivery(target))
  if (await postgresReachable())
    for (const target of targets) rows.push(await benchDelivery(target, postgresURL))
  else console.log(`PostgreSQL delivery skipped: ${postgresURL} is not reachable`)
  printDelivery(rows)
}
if (!only || only === 'search') {
  const rows = [await benchSearch('SQLite')]
  if (await postgresReachable()) rows.push(await benchSearch('PostgreSQL', postgresURL))
  else console.log(`PostgreSQL search skipped: ${postgresURL} is not reachable`)
  printSearch(rows)
}
if (!only || only === 'reports') {
  // Next to the bare route: what any HTTP request costs at least.
  const baseline = await bare()
  console.log(`\n${baseline.name}: p50 ${baseline.p50} ms, p99 ${baseline.p99} ms`)
  const rows = [await benchReports('SQLite')]
  if (await postgresReachable()) rows.push(await benchReports('PostgreSQL', postgresURL))
  else console.log(`PostgreSQL reports skipped: ${postgresURL} is not reachable`)
  printReports(rows)
}
if (!only || only === 'upload') printUploads(await benchUploads())
if (!only || only === 'startup') printStartup(await benchStartup())
if (!only || only === 'abuse') {
  const rows = await benchAbuse('SQLite')
  if (await postgresReachable()) rows.push(...(await benchAbuse('PostgreSQL', postgresURL)))
  printAbuse(rows)
}
if (!only || only === 'instances') {
  if (await postgresReachable())
    printInstances(await benchInstances(postgresURL, instanceCounts(process.argv)))
  else console.log(`Instances skipped: ${postgresURL} is not reachable`)
}
if (only === 'builds') {
  const servers = (process.env.BENCH_PARLEY ?? 'dist/main.js').split(',')
  printBuilds(await benchBuilds(postgresURL, servers))
}
if (only === 'scale') {
  const rows = [await benchScale('SQLite')]
  if (await postgresReachable()) rows.push(await benchScale('PostgreSQL', postgresURL))
  printScale(rows)
}
