// Long file: every environment variable in one schema, parsed and checked once.
import { isIP } from 'node:net'
import { z } from 'zod'
import { type AllowList, parseAllowList } from '../lib/destinations.js'
import { isHostName, parseNetwork } from '../lib/networks.js'
import { type PostgresSettings, postgresEnv, postgresSettings } from './postgres.js'
import { isRedisURL } from './redis-target.js'

/** Everything Parley reads from its environment, parsed and checked once at start. */
export interface Config {
  port: number
  host: string
  dataDir: string
  databaseURL: string | undefined
  redisURL: string | undefined
  /** Pool sizes and named statements on PostgreSQL (PG_*). */
  postgres: PostgresSettings
  /** 32 bytes, from PARLEY_MASTER_KEY; undefined means "use DATA_DIR/master.key". */
  masterKey: Buffer | undefined
  publicURL: string
  /** `true` = any origin. */
  corsOrigins: true | string[]
  botHandoverAfterSeconds: number
  /** How long after closing an agent may reopen a case, in hours; 0: never (CASE_REOPEN_WINDOW_HOURS). */
  caseReopenWindowHours: number
  /** One delivery attempt's time limit, in seconds. */
  deliveryTimeoutSeconds: number
  /** Proxies whose X-Forwarded-* headers are believed (Fastify's trustProxy): false, true, or addresses. */
  trustProxy: boolean | string[]
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  /** Private destinations a chatbot URL may point at anyway (CHATBOT_URL_ALLOW). */
  chatbotURLAllow: AllowList
  /** The largest upload, in bytes (UPLOAD_MAX_MB). */
  uploadMaxBytes: number
  /** What one uploader and one organization may keep unsent, and how fast one uploads (UPLOAD_*). */
  uploadLimits: UploadLimits
  /** Group rooms one user may be in (GROUP_ROOMS_PER_USER). */
  groupRoomsPerUser: number
  /** Where uploaded files' bytes go: DATA_DIR/files, or S3-compatible storage when S3_BUCKET is set. */
  fileStorage: { kind: 'disk' } | { kind: 's3'; s3: S3Settings }
  /** Who may read /metrics (METRICS_TOKEN) and whether it names organizations (METRICS_ORGANIZATION_LABELS). */
  metrics: { token: string | undefined; organizationLabels: boolean }
  /** How long a connection may take to send its request and how long it may sit idle (HTTP_*_TIMEOUT). */
  httpTimeouts: HTTPTimeouts
  /** Open sockets and requests in progress per client address; 0: no cap (CONNECTIONS_PER_ADDRESS). */
  connectionsPerAddress: number
  /** Open /connect sockets per session and per user on one instance (SOCKETS_PER_SESSION, SOCKETS_PER_USER). */
  sockets: { perSession: number; perUser: number }
  /**
   * The inbound SMTP listener (EMAIL_SMTP_PORT, unset: off; EMAIL_SMTP_HOST, loopback unless set),
   * its size limit (EMAIL_MAX_MB) and its rates (EMAIL_SMTP_PER_CLIENT_PER_MINUTE,
   * EMAIL_SMTP_PER_SENDER_PER_MINUTE; 0: none).
   */
  emailSMTP: {
    port: number | undefined
    host: string
    maxBytes: number
    perMinute: { client: number; sender: number }
  }
  /** How often IMAP mailboxes are looked at besides IDLE, and the list of mailboxes read (EMAIL_IMAP_POLL_SECONDS). */
  emailIMAPPollSeconds: number
}

/** Time limits of HTTP connections, in milliseconds (docs/reference/limits.md). */
export interface HTTPTimeouts {
  /** From the first byte of a request to the end of its headers (HTTP_HEADERS_TIMEOUT). */
  headersMs: number
  /** From the first byte of a request to the end of its body (HTTP_REQUEST_TIMEOUT). */
  requestMs: number
  /** A connection on which nothing is sent either way for this long is closed (HTTP_IDLE_TIMEOUT). */
  idleMs: number
  /** A kept-alive connection waiting for its next request (HTTP_KEEP_ALIVE_TIMEOUT). */
  keepAliveMs: number
}

/** Quotas on files uploaded and not sent yet, and the upload rate (docs/reference/quotas.md). */
export interface UploadLimits {
  userFiles: number
  userBytes: number
  organizationFiles: number
  organizationBytes: number
  perMinute: number
}

/** S3-compatible object storage for uploaded files (S3_* settings). */
export interface S3Settings {
  bucket: string
  region: string
  /** A self-hosted store's address (MinIO, Ceph, Garage, ...); AWS's own when undefined. */
  endpoint: string | undefined
  /** `http://host/bucket/key` rather than `http://bucket.host/key`: what self-hosted stores expect. */
  forcePathStyle: boolean
  /** Undefined: the AWS SDK's own chain (AWS_* environment, profile, instance role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined
}

export class ConfigError extends Error {}

const MiB = 1024 * 1024

const url = (protocols: string[]) =>
  z
    .string()
    .refine(
      (value) => protocols.includes(URL.parse(value)?.protocol ?? ''),
      `must be a ${protocols.join(' or ')} URL`,
    )

/**
 * A comma-separated list whose every entry is `valid`; else an issue that says what is `expected`
 * and, in a longer list, which entry is not.
 */
function validList(
  value: string,
  context: z.RefinementCtx,
  valid: (entry: string) => boolean,
  expected: string,
): string[] {
  const entries = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
  const bad = entries.find((entry) => !valid(entry))
  if (bad === undefined && entries.length > 0) return entries
  const which = bad === undefined || entries.length === 1 ? '' : `, not ${JSON.stringify(bad)}`
  context.addIssue({ code: 'custom', message: `must be ${expected}${which}` })
  return z.NEVER
}

/** `*`, or origins as browsers send them in `Origin` (scheme, host, port: no path, no slash). */
const parseOrigins = (value: string, context: z.RefinementCtx): true | string[] =>
  value.trim() === '*'
    ? true
    : validList(
        value,
        context,
        (origin) => URL.parse(origin)?.origin === origin,
        '* or origins like https://example.com',
      )

/** proxy-addr's names for address ranges, which Fastify's trustProxy also takes. */
const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal']

/** `true`/`false`, or the proxies' addresses, CIDRs or range names (what Fastify's trustProxy takes). */
function parseTrustProxy(value: string, context: z.RefinementCtx): boolean | string[] {
  const flag = value.trim().toLowerCase()
  if (flag === 'true' || flag === 'false') return flag === 'true'
  return validList(
    value,
    context,
    (proxy) => parseNetwork(proxy) !== undefined || PROXY_RANGES.includes(proxy),
    'true, false, or addresses or CIDRs',
  )
}

/** A time in seconds (decimals allowed: tests take a fraction of one) up to an hour. */
const seconds = (fallback: number) => z.coerce.number().positive().max(3600).default(fallback)

const env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z
    .string()
    .refine((host) => isIP(host) !== 0 || isHostName(host), 'must be an IP address or a host name')
    .default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  ...postgresEnv,
  REDIS_URL: z.string().refine(isRedisURL, 'must be a redis:, rediss: or redis+cluster: URL').optional(),
  PARLEY_MASTER_KEY: z
    .string()
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded')
    .optional(),
  PUBLIC_URL: url(['http:', 'https:']).optional(),
  CORS_ORIGINS: z.string().default('*').transform(parseOrigins),
  BOT_HANDOVER_AFTER: z.coerce.number().int().min(1).default(60),
  CASE_REOPEN_WINDOW_HOURS: z.coerce.number().int().min(0).max(8760).default(72),
  DELIVERY_TIMEOUT: z.coerce.number().int().min(1).max(120).default(10),
  TRUST_PROXY: z.string().default('false').transform(parseTrustProxy),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  UPLOAD_MAX_MB: z.coerce.number().int().min(1).max(2048).default(25),
  UPLOAD_USER_UNSENT_FILES: z.coerce.number().int().min(1).max(100_000).default(20),
  UPLOAD_USER_UNSENT_MB: z.coerce.number().int().min(1).max(1_048_576).default(100),
  UPLOAD_ORG_UNSENT_FILES: z.coerce.number().int().min(1).max(10_000_000).default(2000),
  UPLOAD_ORG_UNSENT_MB: z.coerce.number().int().min(1).max(1_048_576).default(2048),
  UPLOAD_RATE_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(30),
  GROUP_ROOMS_PER_USER: z.coerce.number().int().min(1).max(100_000).default(500),
  S3_BUCKET: z.string().optional(),
  S3_ENDPOINT: url(['http:', 'https:']).optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).optional(),
  METRICS_TOKEN: z.string().min(16).max(256).optional(),
  METRICS_ORGANIZATION_LABELS: z.enum(['true', 'false']).default('false'),
  HTTP_HEADERS_TIMEOUT: seconds(10),
  HTTP_REQUEST_TIMEOUT: seconds(120),
  HTTP_IDLE_TIMEOUT: seconds(60),
  HTTP_KEEP_ALIVE_TIMEOUT: seconds(72),
  CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(0).default(128),
  SOCKETS_PER_SESSION: z.coerce.number().int().min(1).default(16),
  SOCKETS_PER_USER: z.coerce.number().int().min(1).default(32),
  EMAIL_SMTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  EMAIL_SMTP_HOST: z.string().default('127.0.0.1'),
  EMAIL_SMTP_PER_CLIENT_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  EMAIL_SMTP_PER_SENDER_PER_MINUTE: z.coerce.number().int().min(0).default(20),
  EMAIL_MAX_MB: z.coerce.number().int().min(1).max(1024).default(50),
  EMAIL_IMAP_POLL_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
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
  if (!e.S3_ACCESS_KEY_ID !== !e.S3_SECRET_ACCESS_KEY) {
    throw new ConfigError('Invalid configuration: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together')
  }
  if (e.HTTP_HEADERS_TIMEOUT > e.HTTP_REQUEST_TIMEOUT) {
    throw new ConfigError('Invalid configuration: HTTP_HEADERS_TIMEOUT must not exceed HTTP_REQUEST_TIMEOUT')
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    databaseURL: e.DATABASE_URL,
    redisURL: e.REDIS_URL,
    postgres: postgresSettings(e),
    masterKey: e.PARLEY_MASTER_KEY ? Buffer.from(e.PARLEY_MASTER_KEY, 'base64') : undefined,
    publicURL: (e.PUBLIC_URL ?? `http://${e.HOST}:${e.PORT}`).replace(/\/+$/, ''),
    corsOrigins: e.CORS_ORIGINS,
    botHandoverAfterSeconds: e.BOT_HANDOVER_AFTER,
    caseReopenWindowHours: e.CASE_REOPEN_WINDOW_HOURS,
    deliveryTimeoutSeconds: e.DELIVERY_TIMEOUT,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    chatbotURLAllow: e.CHATBOT_URL_ALLOW,
    uploadMaxBytes: e.UPLOAD_MAX_MB * MiB,
    uploadLimits: {
      userFiles: e.UPLOAD_USER_UNSENT_FILES,
      userBytes: e.UPLOAD_USER_UNSENT_MB * MiB,
      organizationFiles: e.UPLOAD_ORG_UNSENT_FILES,
      organizationBytes: e.UPLOAD_ORG_UNSENT_MB * MiB,
      perMinute: e.UPLOAD_RATE_PER_MINUTE,
    },
    groupRoomsPerUser: e.GROUP_ROOMS_PER_USER,
    fileStorage: e.S3_BUCKET ? { kind: 's3', s3: s3Settings(e, e.S3_BUCKET) } : { kind: 'disk' },
    metrics: { token: e.METRICS_TOKEN, organizationLabels: e.METRICS_ORGANIZATION_LABELS === 'true' },
    httpTimeouts: {
      headersMs: Math.round(e.HTTP_HEADERS_TIMEOUT * 1000),
      requestMs: Math.round(e.HTTP_REQUEST_TIMEOUT * 1000),
      idleMs: Math.round(e.HTTP_IDLE_TIMEOUT * 1000),
      keepAliveMs: Math.round(e.HTTP_KEEP_ALIVE_TIMEOUT * 1000),
    },
    connectionsPerAddress: e.CONNECTIONS_PER_ADDRESS,
    sockets: { perSession: e.SOCKETS_PER_SESSION, perUser: e.SOCKETS_PER_USER },
    emailSMTP: {
      port: e.EMAIL_SMTP_PORT,
      host: e.EMAIL_SMTP_HOST,
      maxBytes: e.EMAIL_MAX_MB * MiB,
      perMinute: { client: e.EMAIL_SMTP_PER_CLIENT_PER_MINUTE, sender: e.EMAIL_SMTP_PER_SENDER_PER_MINUTE },
    },
    emailIMAPPollSeconds: e.EMAIL_IMAP_POLL_SECONDS,
  }
}

function s3Settings(e: z.infer<typeof env>, bucket: string): S3Settings {
  return {
    bucket,
    region: e.S3_REGION,
    endpoint: e.S3_ENDPOINT,
    // A store of one's own is addressed by path unless told otherwise; AWS by host name.
    forcePathStyle: (e.S3_FORCE_PATH_STYLE ?? String(e.S3_ENDPOINT !== undefined)) === 'true',
    credentials:
      e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY }
        : undefined,
  }
}

/**
 * A failure to listen that the operator fixes in PORT or HOST, as the one line a bad setting
 * gets; undefined for any other failure (that one keeps its stack).
 */
export function listenError(
  error: unknown,
  { port, host }: Pick<Config, 'port' | 'host'>,
): ConfigError | undefined {
  const reason = ((): string | undefined => {
    switch ((error as NodeJS.ErrnoException | undefined)?.code) {
      case 'EADDRINUSE':
        return `PORT ${port} is already in use on ${host}`
      case 'EACCES':
        return `PORT ${port} needs privileges this process does not have`
      case 'EADDRNOTAVAIL':
        return `HOST ${host} is not an address of this machine`
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
      case 'EAI_FAIL':
        return `HOST ${host} does not resolve to an address`
      default:
        return undefined
    }
  })()
  return reason === undefined ? undefined : new ConfigError(`Invalid configuration: ${reason}`)
}
