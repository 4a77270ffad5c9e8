import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll } from 'vitest'
import { type AppOptions, buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config/config.js'
import { ManualClock } from '../../src/lib/clock.js'
import { createTestDatabase, type DialectName, type TestDatabase } from './databases.js'

/**
 * Test chatbots listen on 127.0.0.1, a destination Parley refuses by default: test servers and
 * processes allow it, as an operator would (tests of the refusal set CHATBOT_URL_ALLOW: '').
 */
export const LOCAL_BOTS_ALLOWED = { CHATBOT_URL_ALLOW: '127.0.0.1' }

/** A running Parley on a loopback port, on a fresh database, with its log lines captured. */
export interface TestServer {
  url: string
  app: FastifyInstance
  clock: ManualClock
  testDatabase: TestDatabase
  /** Every log line written so far, raw. */
  logs: string[]
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>
}

export interface Reply {
  status: number
  headers: Headers
  text: string
  // biome-ignore lint/suspicious/noExplicitAny: test replies are asserted field by field
  json: any
}

/** Starts Parley on a fresh database of `dialect`, or on an existing test database. */
export async function startServer(
  on: DialectName | TestDatabase,
  env: Record<string, string> = {},
  extra: Pick<AppOptions, 'realtime' | 'delivery'> = {},
): Promise<TestServer> {
  const testDatabase = typeof on === 'string' ? await createTestDatabase(on) : on
  const clock = new ManualClock(Date.now())
  const logs: string[] = []
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk))
      done()
    },
  })
  const config = loadConfig({ ...testDatabase.env, ...LOCAL_BOTS_ALLOWED, LOG_LEVEL: 'debug', ...env })
  const app = await buildApp({
    config,
    database: testDatabase.database,
    masterKey: testDatabase.masterKey,
    clock,
    logStream,
    ...extra,
    // Tests drive the delivery worker by hand unless they ask for it to run.
    delivery: { autoStart: false, ...extra.delivery },
  })
  // A server that must know its own address (PUBLIC_URL) listens where it says.
  const port = env.PUBLIC_URL ? Number(new URL(env.PUBLIC_URL).port) : 0
  const url = await app.listen({ host: '127.0.0.1', port })
  // With Redis, sockets are refused until the hub has subscribed: tests start from a ready server.
  await untilHubReady(app)
  const post = async (path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init: RequestInit = { method: 'POST', headers: { ...headers } }
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body)
      if (typeof body !== 'string')
        (init.headers as Record<string, string>)['content-type'] = 'application/json'
    }
    return send(`${url}${path}`, init)
  }
  return { url, app, clock, testDatabase, logs, post }
}

async function untilHubReady(app: FastifyInstance, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  for (;;) {
    try {
      return await app.services.hub.ready()
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
}

export async function send(url: string, init: RequestInit): Promise<Reply> {
  const response = await fetch(url, init)
  const text = await response.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, text, json }
}

/** Stops the server; its test database is dropped too unless `keepDatabase`. */
export async function stopServer(server: TestServer, { keepDatabase = false } = {}): Promise<void> {
  await server.app.close()
  if (!keepDatabase) await server.testDatabase.drop()
}

/** A server for the enclosing describe block. */
export function useServer(
  dialect: DialectName,
  env: Record<string, string> = {},
  extra: Pick<AppOptions, 'realtime' | 'delivery'> = {},
): () => TestServer {
  let server: TestServer | undefined
  beforeAll(async () => {
    server = await startServer(dialect, env, extra)
  })
  afterAll(async () => {
    if (server) await stopServer(server)
  })
  return () => {
    if (!server) throw new Error('server not started')
    return server
  }
}
