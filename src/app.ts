import { readFileSync } from 'node:fs'
import Fastify, { type FastifyInstance } from 'fastify'
import type { DestinationStream } from 'pino'
import { authAPI } from './api/auth/index.js'
import { chatAPI } from './api/chat/index.js'
import { opsAPI } from './api/ops/health.js'
import { serverAPI } from './api/server/index.js'
import type { Config } from './config/config.js'
import { BODY_LIMIT, useJSONBodies } from './http/body.js'
import { useCORS } from './http/cors.js'
import { useDocs } from './http/docs.js'
import { useErrorMapping } from './http/errors.js'
import { loggerOptions } from './http/logging.js'
import { useZodSchemas } from './http/validation.js'
import { type Clock, systemClock } from './lib/clock.js'
import { createServices, type Services } from './services.js'
import type { Database } from './storage/database.js'

declare module 'fastify' {
  interface FastifyInstance {
    database: Database
    services: Services
  }
}

export interface AppOptions {
  config: Config
  database: Database
  masterKey: Buffer
  clock?: Clock
  /** Where log lines go (default: stdout); tests read them here. */
  logStream?: DestinationStream
}

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string
}

/**
 * Builds the HTTP application without listening: transport rules first (errors, bodies,
 * validation, CORS, docs), then one plugin per API family. Closing the app closes the database.
 */
export async function buildApp({ config, database, masterKey, clock = systemClock, logStream }: AppOptions) {
  const app: FastifyInstance = Fastify({
    logger: { ...loggerOptions(config.logLevel), ...(logStream ? { stream: logStream } : {}) },
    bodyLimit: BODY_LIMIT,
  })
  app.decorate('database', database)
  app.decorate('services', createServices({ database, clock, masterKey }))
  app.addHook('onClose', () => database.close())

  useErrorMapping(app)
  useJSONBodies(app)
  useZodSchemas(app)
  await useCORS(app, config.corsOrigins)
  await useDocs(app, config.publicURL, version)

  await app.register(opsAPI)
  await app.register(serverAPI)
  await app.register(authAPI)
  await app.register(chatAPI)
  return app
}
