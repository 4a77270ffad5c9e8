import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { ConfigError, loadConfig } from '../../src/config/config.js'
import { WORKERS } from '../../src/lib/ids.js'
import { openDatabase } from '../../src/storage/database.js'
import { send } from '../support/app.js'
import { createTestDatabase } from '../support/databases.js'
import { runCLI, startServerProcess } from '../support/processes.js'

describe('configuration', () => {
  test('defaults follow the design', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      dataDir: './data',
      databaseURL: undefined,
      redisURL: undefined,
      postgres: { poolMax: 20, workerPoolMax: 4, namedStatements: true },
      masterKey: undefined,
      publicURL: 'http://127.0.0.1:8080',
      corsOrigins: true,
      botHandoverAfterSeconds: 60,
      caseReopenWindowHours: 72,
      deliveryTimeoutSeconds: 10,
      trustProxy: false,
      logLevel: 'info',
      chatbotURLAllow: expect.objectContaining({ entries: [] }),
      uploadMaxBytes: 25 * 1024 * 1024,
      uploadLimits: {
        userFiles: 20,
        userBytes: 100 * 1024 * 1024,
        organizationFiles: 2000,
        organizationBytes: 2048 * 1024 * 1024,
        perMinute: 30,
      },
      groupRoomsPerUser: 500,
      fileStorage: { kind: 'disk' },
      metrics: { token: undefined, organizationLabels: false },
      httpTimeouts: { headersMs: 10_000, requestMs: 120_000, idleMs: 60_000, keepAliveMs: 72_000 },
      connectionsPerAddress: 128,
      sockets: { perSession: 16, perUser: 32 },
      // Loopback unless told: a public MX is the operator's choice (EMAIL_SMTP_HOST=0.0.0.0).
      emailSMTP: {
        host: '127.0.0.1',
        port: undefined,
        maxBytes: 50 * 1024 * 1024,
        perMinute: { client: 600, sender: 20 },
      },
      emailIMAPPollSeconds: 60,
    })
  })

  test('time limits: seconds with decimals; the headers may not take longer than the whole request', () => {
    expect(
      loadConfig({ HTTP_HEADERS_TIMEOUT: '0.25', HTTP_REQUEST_TIMEOUT: '600' }).httpTimeouts,
    ).toMatchObject({
      headersMs: 250,
      requestMs: 600_000,
    })
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT: '30', HTTP_REQUEST_TIMEOUT: '20' })).toThrow(
      /HTTP_HEADERS_TIMEOUT must not exceed HTTP_REQUEST_TIMEOUT/,
    )
    expect(() => loadConfig({ SOCKETS_PER_USER: '0' })).toThrow(/SOCKETS_PER_USER/)
  })

  test('PostgreSQL: pool sizes from 1 to 1000, named statements true or false', () => {
    expect(
      loadConfig({ PG_POOL_MAX: '5', PG_WORKER_POOL_MAX: '1', PG_NAMED_STATEMENTS: 'false' }).postgres,
    ).toEqual({ poolMax: 5, workerPoolMax: 1, namedStatements: false })
    expect(() => loadConfig({ PG_POOL_MAX: '0' })).toThrow(/PG_POOL_MAX/)
    expect(() => loadConfig({ PG_WORKER_POOL_MAX: '1001' })).toThrow(/PG_WORKER_POOL_MAX/)
    expect(() => loadConfig({ PG_NAMED_STATEMENTS: 'off' })).toThrow(/PG_NAMED_STATEMENTS/)
  })

  test('S3 settings: a bucket selects S3, an endpoint means path-style, keys go in pairs', () => {
    expect(loadConfig({ S3_BUCKET: 'files' }).fileStorage).toEqual({
      kind: 's3',
      s3: {
        bucket: 'files',
        region: 'us-east-1',
        endpoint: undefined,
        forcePathStyle: false,
        credentials: undefined,
      },
    })
    const own = loadConfig({
      S3_BUCKET: 'files',
      S3_ENDPOINT: 'http://minio:9000',
      S3_REGION: 'eu-central-1',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
      UPLOAD_MAX_MB: '100',
    })
    expect(own.fileStorage).toEqual({
      kind: 's3',
      s3: {
        bucket: 'files',
        region: 'eu-central-1',
        endpoint: 'http://minio:9000',
        forcePathStyle: true,
        credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
      },
    })
    expect(own.uploadMaxBytes).toBe(100 * 1024 * 1024)
    expect(
      loadConfig({ S3_BUCKET: 'b', S3_ENDPOINT: 'http://m', S3_FORCE_PATH_STYLE: 'false' }).fileStorage,
    ).toMatchObject({
      s3: { forcePathStyle: false },
    })
  })

  test('values are read and normalised', () => {
    const key = randomBytes(32).toString('base64')
    const config = loadConfig({
      PORT: '9000',
      DATABASE_URL: 'postgres://db.internal/parley',
      REDIS_URL: 'redis://cache:6379',
      PARLEY_MASTER_KEY: key,
      PUBLIC_URL: 'https://chat.example.com/',
      CORS_ORIGINS: 'https://a.example, https://b.example',
      BOT_HANDOVER_AFTER: '30',
      LOG_LEVEL: 'warn',
      TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,fd00::/8,loopback',
    })
    expect(config).toMatchObject({
      port: 9000,
      publicURL: 'https://chat.example.com',
      corsOrigins: ['https://a.example', 'https://b.example'],
      trustProxy: ['127.0.0.1', '10.0.0.0/8', 'fd00::/8', 'loopback'],
      botHandoverAfterSeconds: 30,
      logLevel: 'warn',
    })
    expect(config.masterKey?.toString('base64')).toBe(key)
  })

  test.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x/y', PARLEY_MASTER_KEY: randomBytes(32).toString('base64') }, 'DATABASE_URL'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL'],
    [{ PARLEY_MASTER_KEY: 'c2hvcnQ=' }, 'PARLEY_MASTER_KEY'],
    [{ PUBLIC_URL: 'chat.example.com' }, 'PUBLIC_URL'],
    [{ BOT_HANDOVER_AFTER: '0' }, 'BOT_HANDOVER_AFTER'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ DATABASE_URL: 'postgres://db/parley' }, 'PARLEY_MASTER_KEY'],
    [{ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ HOST: '999.1.1.1' }, 'HOST'],
    [{ HOST: 'my host' }, 'HOST'],
    [{ CORS_ORIGINS: 'notaurl' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'https://a.example/app' }, 'CORS_ORIGINS'],
    [{ CORS_ORIGINS: 'https://a.example,*' }, 'CORS_ORIGINS'],
    [{ UPLOAD_MAX_MB: '0' }, 'UPLOAD_MAX_MB'],
    [{ UPLOAD_MAX_MB: 'lots' }, 'UPLOAD_MAX_MB'],
    [{ S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT'],
    [{ S3_FORCE_PATH_STYLE: 'yes' }, 'S3_FORCE_PATH_STYLE'],
    [{ S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'id' }, 'S3_ACCESS_KEY_ID'],
  ])('a bad value is one line naming the variable: %o', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError)
    try {
      loadConfig(env)
    } catch (error) {
      const message = (error as Error).message
      expect(message).toMatch(new RegExp(`^Invalid configuration: ${name} `))
      expect(message).not.toContain('\n')
    }
  })
})

describe('the server process (npm start)', () => {
  const dirs: string[] = []
  const freshDataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-start-'))
    dirs.push(dir)
    return join(dir, 'data')
  }
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  test('starts on a fresh data directory, creates master.key (0600), and stops cleanly on SIGTERM', async () => {
    const DATA_DIR = freshDataDir()
    const first = await startServerProcess({ DATA_DIR })
    expect((await send(`${first.url}/readyz`, { method: 'GET' })).status).toBe(200)
    const keyFile = join(DATA_DIR, 'master.key')
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    expect(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64')).toHaveLength(32)
    const key = readFileSync(keyFile, 'utf8')
    first.child.kill('SIGTERM')
    expect(await first.exited).toBe(0)

    // A restart, and the CLI, use the same key and data.
    const second = await startServerProcess({ DATA_DIR })
    const org = await runCLI(['org', 'create', '--name', 'Restarted', '--json'], { DATA_DIR })
    expect(org.code).toBe(0)
    expect(readFileSync(keyFile, 'utf8')).toBe(key)
    second.child.kill('SIGTERM')
    expect(await second.exited).toBe(0)
  }, 90_000) // two servers and a CLI run, one after another: 30 s is too little on a busy machine

  test.each([
    [{ PORT: 'abc' }, /^Invalid configuration: PORT /],
    [{ DATABASE_URL: 'postgres://127.0.0.1/test' }, /^Invalid configuration: PARLEY_MASTER_KEY is required/],
    [{ TRUST_PROXY: 'maybe' }, /^Invalid configuration: TRUST_PROXY /],
    [{ HOST: '999.1.1.1' }, /^Invalid configuration: HOST /],
    [{ CORS_ORIGINS: 'notaurl' }, /^Invalid configuration: CORS_ORIGINS /],
  ])('a bad configuration stops it with one line on stderr: %o', async (env, line) => {
    await expectStartFailure({ DATA_DIR: freshDataDir(), ...env }, line)
    const result = await runCLI(['org', 'create', '--name', 'x'], { DATA_DIR: freshDataDir(), ...env })
    expect(result.code).toBe(1)
    const lines = result.stderr.trimEnd().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(line)
  })

  test('with every ID worker number leased, the server and writing CLI commands stop with one line', async () => {
    const testDatabase = await createTestDatabase('sqlite')
    try {
      // Other processes hold every number for the next hour.
      const expires = Date.now() + 3_600_000
      const leases = Array.from({ length: WORKERS }, (_, worker) => ({
        worker,
        holder: 'other',
        expires,
        floor: 0,
      }))
      await testDatabase.database.db.insertInto('id_worker_leases').values(leases).execute()
      const line = /^No ID worker number is free: all 512 are leased by running Parley processes/
      await expectStartFailure(testDatabase.env, line)
      const created = await runCLI(['org', 'create', '--name', 'x'], testDatabase.env)
      expect([created.code, created.stderr.trimEnd().split('\n')]).toEqual([
        1,
        [expect.stringMatching(/^error: No ID/)],
      ])
      // Reading needs no ID.
      expect((await runCLI(['org', 'list', '--json'], testDatabase.env)).code).toBe(0)
    } finally {
      await testDatabase.drop()
    }
  }, 90_000) // a server and two CLI runs, one after another: 30 s is too little on a busy machine

  test('a port in use, or an address not of this machine, is one line naming PORT or HOST', async () => {
    const busy = createServer().listen(0, '127.0.0.1')
    await once(busy, 'listening')
    const { port } = busy.address() as AddressInfo
    const dataDir = freshDataDir()
    try {
      await expectStartFailure(
        { DATA_DIR: dataDir, PORT: String(port) },
        new RegExp(`^Invalid configuration: PORT ${port} is already in use on 127\\.0\\.0\\.1`),
      )
    } finally {
      busy.close()
    }
    // It gave its ID worker number back as it stopped (restarts must not use them all up).
    const database = openDatabase({ dataDir, databaseURL: undefined })
    const leased = await database.db.selectFrom('id_worker_leases').selectAll().execute()
    await database.close()
    expect(leased).toEqual([expect.objectContaining({ worker: 0, expires: expect.any(Number) })])
    expect(leased[0]?.expires).toBeLessThanOrEqual(Date.now())
    // 192.0.2.0/24 is for documentation: no machine has it.
    await expectStartFailure({ DATA_DIR: freshDataDir(), HOST: '192.0.2.1' }, /^Invalid configuration: HOST /)
  })
})

/** The server process must exit with 1, its stderr exactly one line matching `line`. */
async function expectStartFailure(env: Record<string, string>, line: RegExp): Promise<void> {
  const failure = await startServerProcess(env).then(
    (started) => {
      started.child.kill('SIGKILL')
      return new Error('server started')
    },
    (error: Error) => error,
  )
  const [status, stderr] = failure.message.split(' before listening: ')
  expect(status).toBe('server exited with 1')
  expect(stderr?.trimEnd().split('\n')).toEqual([expect.stringMatching(line)])
}
