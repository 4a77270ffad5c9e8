import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import multipart from '@fastify/multipart'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { DestinationStream } from 'pino'
import { agentAPI } from './api/agent/index.js'
import { authAPI } from './api/auth/index.js'
import { backendAPI } from './api/backend/index.js'
import { chatFeaturesAPI } from './api/chat/features.js'
import { chatAPI } from './api/chat/index.js'
import { peopleAPI } from './api/chat/people.js'
import { consoleApp } from './api/console/index.js'
import { filesAPI } from './api/files/index.js'
import { opsAPI } from './api/ops/health.js'
import { visitorAPI } from './api/visitor/index.js'
import { WEBHOOK_PREFIX, webhookAPI, webhookFormat } from './api/webhook/index.js'
import { widgetScript } from './api/widget/index.js'
import { useTapTalkCompat } from './compat/taptalk/index.js'
import type { Config } from './config/config.js'
import { eventWebhooks } from './contract/events.js'
import { httpChatbotClient } from './domain/delivery/attempt.js'
import { ThreadChainSender } from './domain/delivery/chain-sender.js'
import { ChatbotTarget } from './domain/delivery/chatbot-target.js'
import { DELIVERY_DEFAULTS, type DeliveryOptions, DeliveryWorker } from './domain/delivery/delivery.worker.js'
import { EmailTarget } from './domain/email/email-target.js'
import { DISABLE_AFTER_MS, ENDPOINT_CHAIN, EndpointTarget } from './domain/events/endpoint-target.js'
import { sweepUnsentFiles } from './domain/files/unsent-sweep.js'
import { repositories } from './domain/repositories.js'
import { ScheduledSender } from './domain/scheduled/scheduled-sender.js'
import { BODY_LIMIT, useJSONBodies } from './http/body.js'
import { timeoutOptions, useConnectionLimits } from './http/connection-limits.js'
import { useCORS } from './http/cors.js'
import { useDocs } from './http/docs.js'
import { ErrorFormats, useErrorMapping } from './http/errors.js'
import { loggerOptions } from './http/logging.js'
import { useMetrics } from './http/metrics.js'
import { responseSerializerCompiler } from './http/serialization.js'
import { zodValidatorCompiler } from './http/validation.js'
import { type Clock, systemClock } from './lib/clock.js'
import { DestinationPolicy } from './lib/destinations.js'
import { PACKAGE_ROOT } from './lib/package-root.js'
import { useMail } from './mail/index.js'
import { SMTPRateLimits } from './mail/smtp-limits.js'
import { GATEWAY_DEFAULTS, gateway } from './realtime/gateway.js'
import { LocalHub } from './realtime/hub.js'
import { LocalPresence, Presence, RedisPresence } from './realtime/presence.js'
import { RedisHub } from './realtime/redis-hub.js'
import { subscriptionsOn } from './realtime/subscriber-links.js'
import { createServices, type Services } from './services.js'
import { MemoryCounter } from './storage/counters.js'
import type { Database } from './storage/database.js'
import { fileStorage } from './storage/files/index.js'
import { RedisConnections, RedisCounter } from './storage/redis.js'

declare module 'fastify' {
  interface FastifyInstance {
    database: Database
    /** The connections to Redis, with REDIS_URL. */
    redis: RedisConnections | undefined
    services: Services
    delivery: DeliveryWorker
    /** Sends scheduled messages as they come due. */
    scheduler: ScheduledSender
  }
}

export interface AppOptions {
  config: Config
  database: Database
  masterKey: Buffer
  clock?: Clock
  /** Where log lines go (default: stdout); tests read them here. */
  logStream?: DestinationStream
  /** Gateway timings (tests shorten the ping interval). */
  realtime?: Partial<typeof GATEWAY_DEFAULTS>
  /** How often each instance looks for scheduled messages come due (1 s unless given). */
  scheduledPollMs?: number
  /** Delivery worker settings; `autoStart: false` leaves it to be driven by hand (tests). */
  delivery?: Partial<DeliveryOptions> & {
    autoStart?: boolean
    endpointDisableAfterMs?: number
    /** An endpoint's deliveries one claim takes (ENDPOINT_CHAIN; tests make it small). */
    endpointChain?: number
  }
}

/**
 * Requests are checked by their zod schemas and answers written by serialisers compiled from them on
 * first use. Given to Fastify as it is created, its own compilers (Ajv, fast-json-stringify) are
 * never loaded, not even for routes without schemas. (Its option types are Ajv's: hence the cast.)
 */
const OUR_COMPILERS = {
  compilersFactory: {
    buildValidator: () => zodValidatorCompiler,
    buildSerializer: () => responseSerializerCompiler,
  },
} as unknown as FastifyServerOptions['schemaController']

const { version } = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
  version: string
}

/**
 * Builds the HTTP application without listening: the docs first (they see every route), then
 * transport rules (errors, bodies, validation, CORS), then one plugin per API family. Closing the app
 * closes the database and the connections to Redis.
 */
export async function buildApp(options: AppOptions) {
  const { config, database, masterKey, clock = systemClock, logStream } = options
  // The webhook answers in plain text, even what Node's parser or the router refuses on its path.
  const errorFormats = new ErrorFormats([[WEBHOOK_PREFIX, webhookFormat]])
  const app: FastifyInstance = Fastify({
    clientErrorHandler: errorFormats.onClientError,
    frameworkErrors: errorFormats.onFrameworkError,
    logger: { ...loggerOptions(config.logLevel), ...(logStream ? { stream: logStream } : {}) },
    bodyLimit: BODY_LIMIT,
    ...timeoutOptions(config.httpTimeouts),
    // Behind a load balancer: the client's address (rate limits, logs) and https (Secure cookies).
    trustProxy: config.trustProxy,
    schemaController: OUR_COMPILERS,
  })
  // Before any ID is issued: this process's worker number in the database (storage/id-workers.ts).
  // Several apps in one process (tests) on one database handle share its lease.
  await database.ids.lease({ log: app.log })
  // Without Redis, one instance: events, presence and login counts stay in the process.
  const redis = config.redisURL ? new RedisConnections(config.redisURL, app.log) : undefined
  const hub = redis
    ? new RedisHub(redis.publisher, (events) => subscriptionsOn(redis, events), app.log)
    : new LocalHub(app.log)
  const services = createServices({
    database,
    clock,
    masterKey,
    hub,
    publicURL: config.publicURL,
    destinations: new DestinationPolicy(config.chatbotURLAllow),
    caseReopenWindowHours: config.caseReopenWindowHours,
    groupRoomsPerUser: config.groupRoomsPerUser,
    files: fileStorage(config),
    // With several instances, each uploader's uploads are counted together (login limits' connection).
    ...(redis ? { uploadCounter: new RedisCounter(redis.logins) } : {}),
  })
  const presence = new Presence(
    redis ? new RedisPresence(redis.presence, () => clock.now()) : new LocalPresence(),
    {
      user: (organizationID, userID) => services.users.get(organizationID, userID),
      // Those the user blocked do not see their presence.
      peers: async (userID) =>
        services.people.blocks.notBlockedBy(userID, await services.rooms.peersOf(userID)),
    },
    hub,
    () => clock.now(),
  )
  app.decorate('database', database)
  app.decorate('redis', redis)
  app.decorate('services', services)
  // Before any route, so that the document sees every one (/metrics is added next).
  useDocs(app, config.publicURL, version, eventWebhooks)
  const smtpLimits = new SMTPRateLimits({
    counter: redis ? new RedisCounter(redis.logins) : new MemoryCounter(),
    clock,
    perMinute: config.emailSMTP.perMinute,
  })
  const metrics = useMetrics(
    app,
    () => services.files.usagePerOrganization(),
    config.metrics,
    { ...services.files.uploadLimits, fullest: () => services.files.fullestUnsent() },
    smtpLimits.refusals,
  )
  const {
    autoStart = true,
    endpointDisableAfterMs = DISABLE_AFTER_MS,
    endpointChain = ENDPOINT_CHAIN,
    ...deliveryOptions
  } = options.delivery ?? {}
  const handoverAfterMs = config.botHandoverAfterSeconds * 1000
  // The worker's queries, its targets' included, do not queue behind requests (PostgreSQL: they
  // have connections of their own; see Database.worker).
  const targetDeps = { database: database.worker, repositories, log: app.log, meter: metrics.delivery }
  const delivery = new DeliveryWorker(
    {
      database: database.worker,
      clock,
      repositories,
      client: httpChatbotClient,
      destinations: services.chatbots.destinations,
      chains: new ThreadChainSender(services.chatbots.destinations),
      log: app.log,
      meter: metrics.delivery,
      // The one engine, two kinds of target: chatbots, and the customer's event endpoints.
      targets: {
        chatbot: new ChatbotTarget({
          ...targetDeps,
          chatbots: services.chatbots,
          cases: services.cases.chatbotCases,
          files: services.files,
          handoverAfterMs,
        }),
        endpoint: new EndpointTarget({
          ...targetDeps,
          sealer: services.eventSealer,
          audit: services.audit,
          // Presence is real-time's: the domain is given the question, not the module.
          isOnline: (userIDs) => presence.online(userIDs),
          disableAfterMs: endpointDisableAfterMs,
          chain: endpointChain,
        }),
        email: new EmailTarget({
          ...targetDeps,
          senders: services.email.senders,
          channel: services.email.channel,
          isOnline: (userIDs) => presence.online(userIDs),
        }),
      },
    },
    {
      ...DELIVERY_DEFAULTS,
      handoverAfterMs,
      timeoutMs: config.deliveryTimeoutSeconds * 1000,
      ...deliveryOptions,
    },
  )
  services.deliveryBell.listen(() => delivery.wake())
  app.decorate('delivery', delivery)
  useMail(app, config, services.email, smtpLimits)
  if (autoStart) app.addHook('onReady', async () => delivery.start())
  // Files uploaded and never sent go after a day; looked for every hour.
  let stopSweeping = () => {}
  app.addHook('onReady', async () => {
    stopSweeping = sweepUnsentFiles(services.files, 3_600_000, app.log)
  })
  app.addHook('preClose', async () => stopSweeping())
  // Before the database closes: finish (or release) what is in flight.
  app.addHook('preClose', async () => delivery.stop())
  // Scheduled messages as they come due (every instance; leases share them out).
  const scheduler = new ScheduledSender(services.scheduled, app.log, options.scheduledPollMs ?? 1000)
  app.decorate('scheduler', scheduler)
  app.addHook('onReady', async () => scheduler.start())
  app.addHook('preClose', async () => scheduler.stop())
  app.addHook('onClose', async () => {
    await hub.close()
    await redis?.close()
    await database.close()
  })

  useErrorMapping(app, errorFormats)
  // First of the requests' hooks: a client over its share is refused before anything else runs.
  useConnectionLimits(app, { perAddress: config.connectionsPerAddress, trustProxy: config.trustProxy })
  useJSONBodies(app)
  await useCORS(app, config.corsOrigins)
  // Uploads' bodies (after useJSONBodies, which starts the parsers afresh): read by the upload
  // routes as streams, one file each; one byte past the limit is enough to refuse it (413).
  await app.register(multipart, {
    limits: { fileSize: config.uploadMaxBytes + 1, files: 1, fields: 10, fieldSize: 1024, parts: 11 },
  })
  // Before the API families: it translates their requests and answers for the SDKs it serves.
  await useTapTalkCompat(app)

  await app.register(opsAPI)
  await app.register(backendAPI)
  await app.register(authAPI)
  await app.register(chatAPI)
  await app.register(chatFeaturesAPI)
  await app.register(peopleAPI)
  await app.register(visitorAPI)
  await app.register(webhookAPI)
  await app.register(agentAPI, { redis: redis?.logins, clock })
  await app.register(gateway, {
    presence,
    clock,
    sockets: config.sockets,
    ...GATEWAY_DEFAULTS,
    ...options.realtime,
  })
  await app.register(consoleApp)
  await app.register(widgetScript)
  await app.register(filesAPI)
  return app
}
