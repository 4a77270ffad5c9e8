import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { killLeftovers } from './children.js'
import { dropLeftovers, runPrefix } from './databases.js'
import { startPgBouncer } from './pgbouncer.js'

// Tests spawn the built CLI and server (as users run them) and open the built console, so build
// first (unless the build is newer than every source); name this run, so its leftovers can be
// dropped at the end; and say what this run cannot cover.

/** Written by `npm run build` when it succeeds. */
const STAMP = 'dist/.built'
const SOURCES = [
  'src',
  'console',
  'packages/client/src',
  'packages/widget/src',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/bundle.ts',
]

/** The newest modification time among the files the build reads. */
function newestSource(): number {
  let newest = 0
  for (const source of SOURCES) {
    const stat = statSync(source)
    newest = Math.max(newest, stat.mtimeMs)
    if (!stat.isDirectory()) continue
    for (const entry of readdirSync(source, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs)
    }
  }
  return newest
}

function buildUnlessCurrent(): void {
  if (existsSync(STAMP) && statSync(STAMP).mtimeMs > newestSource()) {
    console.log('The build is current: not building again.')
    return
  }
  // vitest sets NODE_ENV=test, which would make Vite build React's development bundle.
  // (The build writes the stamp.)
  execFileSync('npm', ['run', '--silent', 'build'], {
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  })
}

/**
 * With TEST_PGBOUNCER, the run reaches PostgreSQL through a pgbouncer in transaction mode of its
 * own: test workers inherit its DATABASE_URL (and so does every process they start), and test
 * databases are databases rather than schemas (databases.ts, `pooled`). Its process is this
 * one's to stop, after the teardown has dropped what the run left.
 */
async function throughPgBouncer(): Promise<(() => Promise<void>) | undefined> {
  if (!process.env.TEST_PGBOUNCER || !process.env.DATABASE_URL) return undefined
  // Each test database is a pool of its own, as large as a handle's (so that a burst queues no
  // longer than it would without pgbouncer), whose idle connections are let go of soon: the run's
  // databases together stay within PostgreSQL's max_connections.
  const bouncer = await startPgBouncer(process.env.DATABASE_URL, {
    poolSize: 20,
    serverIdleTimeout: 5,
    spawn: (command, args, options) => spawn(command, args, options),
  })
  process.env.DATABASE_URL = bouncer.through(process.env.DATABASE_URL)
  console.log(
    `\nPostgreSQL is reached through pgbouncer (transaction mode) at ${process.env.DATABASE_URL}.\n`,
  )
  return bouncer.stop
}

export default async function setup(): Promise<() => Promise<void>> {
  buildUnlessCurrent()
  // Test workers inherit this: every schema and database they create starts with runPrefix().
  process.env.PARLEY_TEST_RUN = randomBytes(4).toString('hex')
  const prefix = runPrefix()
  if (!process.env.DATABASE_URL)
    console.log('\nPostgreSQL runs skipped: DATABASE_URL is not set, so storage tests run on SQLite only.\n')
  const stopBouncer = await throughPgBouncer()
  return async () => {
    const left = killLeftovers()
    if (process.env.DATABASE_URL) await dropLeftovers(prefix)
    await stopBouncer?.()
    // Each test file kills what it started (setup-children.ts): anything still running here
    // escaped that (a worker died), and the run fails even though it is killed now.
    if (left.length > 0)
      throw new Error(`Processes left running by the tests (killed now):\n${left.join('\n')}`)
  }
}
