import type { FastifyInstance } from 'fastify'
import type { Registry } from 'prom-client'
import { SECURITY } from './docs.js'
import { plainText } from './envelope.js'
import { type UploadReport, uploadMetrics } from './upload-metrics.js'

/** What the uploaded files of each organization take, read from the database at each scrape. */
export type FileUsage = () => Promise<{ organizationID: string; files: number; bytes: number }[]>

/**
 * Prometheus metrics at GET /metrics: the process's defaults, the delivery outbox's (the meter
 * returned here is what the delivery worker counts with: its DeliveryMeter), the files each
 * organization stores, and the uploads' limits (upload-metrics.ts).
 *
 * prom-client is loaded by the first scrape, not at start: until then the meter counts in plain
 * numbers (as cheap as counting gets), which the metrics read at each scrape. The process's default
 * metrics (garbage collection, event loop delay) are measured from that first scrape on.
 */
export function useMetrics(app: FastifyInstance, fileUsage: FileUsage, uploads: UploadReport) {
  const counts = { sent: 0, retried: 0, failed: 0, handedOver: 0, lag: 0 }
  /** Event deliveries per endpoint and outcome. */
  const events = new Map<string, { endpoint: string; outcome: string; count: number }>()
  let registry: Promise<Registry> | undefined
  const schema = {
    summary: 'Prometheus metrics (text exposition format)',
    tags: ['operations'],
    security: SECURITY.public,
    response: { 200: plainText('The metrics.') },
  }
  app.get('/metrics', { schema }, async (_request, reply) => {
    registry ??= import('prom-client').then((client) =>
      metricsRegistry(client, counts, events, fileUsage, uploads),
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
  uploads: UploadReport,
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
      labelNames: ['organization'],
      registers: [registry],
      // Set at each scrape from what the database holds: every instance answers the same.
      async collect() {
        this.reset()
        for (const organization of await fileUsage())
          this.set({ organization: organization.organizationID }, organization[of])
      },
    })
  usage('parley_files', 'Uploaded files stored, per organization.', 'files')
  usage('parley_file_bytes', 'Bytes of uploaded files stored, per organization.', 'bytes')
  uploadMetrics({ Counter, Gauge }, registry, uploads)
  return registry
}
