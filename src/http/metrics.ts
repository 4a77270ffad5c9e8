import type { FastifyInstance } from 'fastify'
import type { Registry } from 'prom-client'
import { AppError } from '../errors/app-error.js'
import { constantTimeEqual, hashSecret } from '../lib/secrets.js'
import { readBearer } from './credentials.js'
import { SECURITY } from './docs.js'
import { errorEnvelope, plainText } from './envelope.js'
import { type UploadReport, uploadMetrics } from './upload-metrics.js'

/** What the uploaded files of each organization take, read from the database at each scrape. */
export type FileUsage = () => Promise<{ organizationID: string; files: number; bytes: number }[]>

/** Who may scrape, and what the metrics may name (METRICS_TOKEN, METRICS_ORGANIZATION_LABELS). */
export interface MetricsAccess {
  /** The bearer token a scrape must present; undefined: /metrics is public. */
  token: string | undefined
  /** Whether file usage is told per organization (labelled with its ID) or as one total. */
  organizationLabels: boolean
}

/**
 * Prometheus metrics at GET /metrics: the process's defaults, the delivery outbox's (the meter
 * returned here is what the delivery worker counts with: its DeliveryMeter), the files stored (in
 * all or per organization), the uploads' limits (upload-metrics.ts), and the inbound SMTP
 * listener's refusals past its rates (mail/smtp-limits.ts).
 *
 * prom-client is loaded by the first scrape, not at start: until then the meter counts in plain
 * numbers (as cheap as counting gets), which the metrics read at each scrape. The process's default
 * metrics (garbage collection, event loop delay) are measured from that first scrape on.
 */
export function useMetrics(
  app: FastifyInstance,
  fileUsage: FileUsage,
  access: MetricsAccess,
  uploads: UploadReport,
  smtpRefusals: Readonly<Record<string, number>>,
) {
  const counts = { sent: 0, retried: 0, failed: 0, handedOver: 0, lag: 0 }
  /** Event deliveries per endpoint and outcome. */
  const events = new Map<string, { endpoint: string; outcome: string; count: number }>()
  let registry: Promise<Registry> | undefined
  const { token } = access
  const schema = {
    summary: 'Prometheus metrics (text exposition format)',
    description: 'With METRICS_TOKEN set, `Authorization: Bearer <METRICS_TOKEN>` is required.',
    tags: ['operations'],
    security: SECURITY.public,
    response: {
      200: plainText('The metrics.'),
      401: errorEnvelope('40101 no Authorization header, 40102 not "Bearer <token>", 40103 wrong token', {
        status: 401,
        code: '40103',
        message: 'Metrics token is wrong',
      }),
    },
  }
  // Compared as hashes: equal lengths, so the time tells nothing of the token, not even its length.
  const expected = token === undefined ? undefined : hashSecret(token)
  const onRequest = async (request: { headers: { authorization?: string } }) => {
    if (expected === undefined) return
    if (!constantTimeEqual(hashSecret(readBearer(request.headers.authorization)), expected))
      throw new AppError('invalidToken', 'Metrics token is wrong')
  }
  app.get('/metrics', { schema, onRequest }, async (_request, reply) => {
    registry ??= import('prom-client').then((client) =>
      metricsRegistry(client, counts, events, fileUsage, access.organizationLabels, uploads, smtpRefusals),
    )
    const metrics = await registry
    reply.type(metrics.contentType)
    return metrics.metrics()
  })
  return {
    delivery: {
      sent: () => void counts.sent++,
      retried: () => void counts.retried++,
      failed: () => void counts.failed++,
      handedOver: () => void counts.handedOver++,
      lag: (seconds: number) => {
        counts.lag = seconds
      },
      event: (endpoint: string, outcome: string) => {
        const key = `${endpoint} ${outcome}`
        const counted = events.get(key)
        if (counted) counted.count++
        else events.set(key, { endpoint, outcome, count: 1 })
      },
    },
  }
}

/** The registry of every metric, each read at a scrape from what the meter counted. */
function metricsRegistry(
  { Counter, collectDefaultMetrics, Gauge, Registry }: typeof import('prom-client'),
  counts: Record<'sent' | 'retried' | 'failed' | 'handedOver' | 'lag', number>,
  events: Map<string, { endpoint: string; outcome: string; count: number }>,
  fileUsage: FileUsage,
  organizationLabels: boolean,
  uploads: UploadReport,
  smtpRefusals: Readonly<Record<string, number>>,
): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'parley_' })
  const counter = (name: string, help: string, of: keyof typeof counts) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset()
        if (counts[of]) this.inc(counts[of])
      },
    })
  counter('parley_deliveries_sent_total', 'Deliveries a chatbot accepted (2xx).', 'sent')
  counter('parley_deliveries_retried_total', 'Delivery attempts that will be retried.', 'retried')
  counter('parley_deliveries_failed_total', 'Deliveries that failed for good.', 'failed')
  counter('parley_deliveries_handovers_total', 'Cases taken from an unresponsive chatbot.', 'handedOver')
  new Counter({
    name: 'parley_event_deliveries_total',
    help: 'Attempts to deliver events to event endpoints, per endpoint and outcome (sent, retry, failed).',
    labelNames: ['endpoint', 'outcome'],
    registers: [registry],
    collect() {
      this.reset()
      for (const { endpoint, outcome, count } of events.values()) this.inc({ endpoint, outcome }, count)
    },
  })
  new Gauge({
    name: 'parley_deliveries_lag_seconds',
    help: 'How long the oldest due delivery has been waiting.',
    registers: [registry],
    collect() {
      this.set(counts.lag)
    },
  })
  const usage = (name: string, help: string, of: 'files' | 'bytes') =>
    new Gauge({
      name,
      help,
      labelNames: organizationLabels ? ['organization'] : [],
      registers: [registry],
      // Set at each scrape from what the database holds: every instance answers the same.
      async collect() {
        this.reset()
        const organizations = await fileUsage()
        if (!organizationLabels)
          this.set(organizations.reduce((sum, organization) => sum + organization[of], 0))
        else
          for (const organization of organizations)
            this.set({ organization: organization.organizationID }, organization[of])
      },
    })
  const per = organizationLabels ? 'per organization' : 'in all organizations'
  usage('parley_files', `Uploaded files stored, ${per}.`, 'files')
  usage('parley_file_bytes', `Bytes of uploaded files stored, ${per}.`, 'bytes')
  uploadMetrics({ Counter, Gauge }, registry, uploads)
  new Counter({
    name: 'parley_email_smtp_refusals_total',
    help: 'Messages the inbound SMTP listener refused past a rate, per limit (client, sender), on this instance.',
    labelNames: ['limit'],
    registers: [registry],
    collect() {
      this.reset()
      for (const [limit, count] of Object.entries(smtpRefusals)) this.inc({ limit }, count)
    },
  })
  return registry
}
