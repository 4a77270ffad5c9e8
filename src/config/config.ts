import { z } from 'zod'
import { type AllowList, parseAllowList } from '../lib/destinations.js'

/** Everything Parley reads from its environment, parsed and checked once at start. */
export interface Config {
  port: number
  host: string
  dataDir: string
  databaseURL: string | undefined
  redisURL: string | undefined
  /** 32 bytes, from PARLEY_MASTER_KEY; undefined means "use DATA_DIR/master.key". */
  masterKey: Buffer | undefined
  publicURL: string
  /** `true` = any origin. */
  corsOrigins: true | string[]
  botHandoverAfterSeconds: number
  /** One delivery attempt's time limit, in seconds. */
  deliveryTimeoutSeconds: number
  /** Proxies whose X-Forwarded-* headers are believed (Fastify's trustProxy): false, true, or addresses. */
  trustProxy: boolean | string[]
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  /** Private destinations a chatbot URL may point at anyway (CHATBOT_URL_ALLOW). */
  chatbotURLAllow: AllowList
}

export class ConfigError extends Error {}

const url = (protocols: string[]) =>
  z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol)
      } catch {
        return false
      }
    },
    `must be a ${protocols.join(' or ')} URL`,
  )

const env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  REDIS_URL: url(['redis:', 'rediss:']).optional(),
  PARLEY_MASTER_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
    .optional(),
  PUBLIC_URL: url(['http:', 'https:']).optional(),
  CORS_ORIGINS: z.string().default('*'),
  BOT_HANDOVER_AFTER: z.coerce.number().int().min(1).default(60),
  DELIVERY_TIMEOUT: z.coerce.number().int().min(1).max(120).default(10),
  TRUST_PROXY: z.string().default('false'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  CHATBOT_URL_ALLOW: z
    .string()
    .default('')
    .transform((value, context) => {
      try {
        return parseAllowList(value)
      } catch (error) {
        context.addIssue({ code: 'custom', message: `has ${(error as Error).message}` })
        return z.NEVER
      }
    }),
})

/** `true`/`false`, or a comma-separated list of proxy addresses or CIDRs. */
function parseTrustProxy(value: string): boolean | string[] {
  const trimmed = value.trim().toLowerCase()
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true'
  return value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
}

/** Parses the environment; throws a ConfigError whose message is one line naming the variable. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as in most shells' `VAR= command`.
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ''))
  const parsed = env.safeParse(present)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const name = String(issue?.path[0])
    throw new ConfigError(
      `Invalid configuration: ${name} ${issue?.message} (got ${JSON.stringify(source[name])})`,
    )
  }
  const e = parsed.data
  if (e.DATABASE_URL && !e.PARLEY_MASTER_KEY) {
    throw new ConfigError('Invalid configuration: PARLEY_MASTER_KEY is required when DATABASE_URL is set')
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    databaseURL: e.DATABASE_URL,
    redisURL: e.REDIS_URL,
    masterKey: e.PARLEY_MASTER_KEY ? Buffer.from(e.PARLEY_MASTER_KEY, 'base64') : undefined,
    publicURL: (e.PUBLIC_URL ?? `http://${e.HOST}:${e.PORT}`).replace(/\/+$/, ''),
    corsOrigins: e.CORS_ORIGINS.trim() === '*' ? true : e.CORS_ORIGINS.split(',').map((o) => o.trim()),
    botHandoverAfterSeconds: e.BOT_HANDOVER_AFTER,
    deliveryTimeoutSeconds: e.DELIVERY_TIMEOUT,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    logLevel: e.LOG_LEVEL,
    chatbotURLAllow: e.CHATBOT_URL_ALLOW,
  }
}
