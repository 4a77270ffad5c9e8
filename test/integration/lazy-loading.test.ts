import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { SQLITE_DRIVER } from '../../src/storage/sqlite-driver.js'
import { send } from '../support/app.js'
import { startServerProcess } from '../support/processes.js'

// Start-up loads what the configuration needs (docs/benchmarks.md, start-up): on SQLite without Redis, the
// PostgreSQL and Redis clients, Swagger, Prometheus' client, S3's SDK, sharp, jose and mail's packages wait for the
// request that needs them; nor does Node's bundled undici (an ES module import of node:http loads
// it, see lib/builtins.ts). The built server runs with a test-only hook (support/module-log.mjs)
// that lists, as the process exits, every module it loaded.

/** What a hidden regression would load at start: each package, and where it is needed. */
const LAZY = [
  'pg', // DATABASE_URL
  'ioredis', // REDIS_URL
  '@fastify/swagger', // /docs
  '@fastify/swagger-ui',
  'yaml',
  'prom-client', // /metrics
  '@fastify/send', // the console's files
  'jose', // access tokens
  '@aws-sdk/client-s3', // S3_BUCKET
  'sharp', // an image's thumbnail
  'nodemailer', // a reply sent by e-mail
  'mailparser', // a mail taken in
  'imapflow', // a mailbox with IMAP
  'smtp-server', // EMAIL_SMTP_PORT
  '@fastify/ajv-compiler', // never: routes are checked with zod
  // fast-json-stringify with Ajv, which it checks schemas with: a route's first answer other than
  // a health check's, an event's first delivery (Fastify itself loads fast-json-stringify's writer)
  'ajv',
]

/** The server as `npm start` runs it (dist/main.js imports it), and what esbuild put in it. */
const BUNDLE = join(process.cwd(), 'dist/bundle/server.js')
const BUNDLE_META = join(process.cwd(), 'dist/bundle/meta.json')

/** The packages in the bundle, by name, from the modules esbuild lists as its inputs. */
function packagesBundled(): Set<string> {
  const { inputs } = JSON.parse(readFileSync(BUNDLE_META, 'utf8')) as { inputs: Record<string, unknown> }
  const names = Object.keys(inputs).map((path) => /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1])
  return new Set(names.filter((name): name is string => name !== undefined))
}

/** The packages a process loaded, by name (`@scope/name` or `name`). */
function packagesLoaded(log: string[]): Set<string> {
  const names = log.map((path) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1])
  return new Set(names.filter((name): name is string => name !== undefined))
}

/** Starts the built server on SQLite with the module log, runs `requests`, stops it: the log. */
async function logOf(requests: (url: string) => Promise<void>): Promise<string[]> {
  const DATA_DIR = mkdtempSync(join(tmpdir(), 'parley-lazy-'))
  const MODULE_LOG = join(DATA_DIR, 'modules.log')
  const server = await startServerProcess({ DATA_DIR, MODULE_LOG }, [
    '--import',
    './test/support/module-log.mjs',
  ])
  try {
    await requests(server.url)
  } finally {
    server.child.kill('SIGTERM')
  }
  expect(await server.exited).toBe(0)
  return readFileSync(MODULE_LOG, 'utf8').split('\n')
}

test('on SQLite without Redis, a server answering /healthz has loaded none of what waits for a request', async () => {
  const log = await logOf(async (url) => {
    expect((await send(`${url}/healthz`, { method: 'GET' })).status).toBe(200)
  })
  const loaded = packagesLoaded(log)
  // Node's own modules are in the log too (node:http is there on every version; undici, from Node 22).
  expect(log).toContain('node:http')
  expect(log).not.toContain('node:internal/deps/undici/undici')
  // The log sees what is loaded, ES modules and CommonJS alike: the bundle, and the driver beside it.
  expect(log).toContain(BUNDLE)
  expect(loaded).toContain(SQLITE_DRIVER)
  expect(LAZY.filter((name) => loaded.has(name))).toEqual([])
})

test('the bundle npm start runs leaves out what waits for a request, and holds what starts the server', () => {
  // Inside the bundle a package would be read and compiled at start, and the log above would
  // never see it: each is left in node_modules (scripts/bundle.ts).
  const bundled = packagesBundled()
  expect(LAZY.filter((name) => bundled.has(name))).toEqual([])
  expect(bundled).toContain('fastify')
  expect(bundled).toContain('kysely')
  expect(bundled).not.toContain(SQLITE_DRIVER)
})

test("the bundle's files are ASCII: V8 holds a file with any other character as UTF-16, twice its size", () => {
  const { outputs } = JSON.parse(readFileSync(BUNDLE_META, 'utf8')) as { outputs: Record<string, unknown> }
  const files = Object.keys(outputs).filter((path) => path.endsWith('.js'))
  expect(files).toContain('dist/bundle/server.js')
  expect(files.filter((path) => !readFileSync(path).every((byte) => byte < 0x80))).toEqual([])
})

test('a server that has just started holds V8 young generation near its first size', async () => {
  // Start-up grows it to 32 MB unless held (lib/start-up-memory.ts); an idle Node 24 keeps that.
  const log = await logOf(async (url) => {
    expect((await send(`${url}/healthz`, { method: 'GET' })).status).toBe(200)
  })
  const youngBytes = Number(log.find((line) => line.startsWith('young-generation '))?.split(' ')[1])
  expect(youngBytes).toBeGreaterThan(0)
  expect(youngBytes).toBeLessThanOrEqual(8 * 1024 * 1024)
})

test('the first /docs, /metrics and console page load theirs, and answer as before', async () => {
  const log = await logOf(async (url) => {
    const document = await send(`${url}/docs/json`, { method: 'GET' })
    expect(document.json.info.title).toBe('Parley')
    expect((await send(`${url}/docs`, { method: 'GET', redirect: 'follow' })).text).toContain('swagger')
    // A path Swagger UI does not serve is the app's own 404, in the envelope.
    expect((await send(`${url}/docs/nothing-here`, { method: 'GET' })).json.error.code).toBe('40400')
    expect((await send(`${url}/metrics`, { method: 'GET' })).text).toContain('parley_deliveries_sent_total 0')
    expect((await send(`${url}/console/`, { method: 'GET' })).text).toContain('<div id="root">')
  })
  const loaded = packagesLoaded(log)
  for (const name of ['@fastify/swagger', '@fastify/swagger-ui', 'prom-client', '@fastify/send'])
    expect(loaded).toContain(name)
  expect(loaded).not.toContain('pg')
  expect(loaded).not.toContain('ioredis')
})
