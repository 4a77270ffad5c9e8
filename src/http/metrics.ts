import type { FastifyInstance } from 'fastify'
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client'
import { SECURITY } from './docs.js'
import { plainText } from './envelope.js'

/** What the uploaded files of each organization take, read from the database at each scrape. */
export type FileUsage = () => Promise<{ organizationID: string; files: number; bytes: number }[]>

/**
 * Prometheus metrics at GET /metrics: the process's defaults, the delivery outbox's (the meter
 * returned here is what the delivery worker counts with: its DeliveryMeter) and the files each
 * organization stores.
 */
export function useMetrics(app: FastifyInstance, fileUsage: FileUsage) {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'parley_' })
  const counter = (name: string, help: string) => new Counter({ name, help, registers: [registry] })
  const sent = counter('parley_deliveries_sent_total', 'Deliveries a chatbot accepted (2xx).')
  const retried = counter('parley_deliveries_retried_total', 'Delivery attempts that will be retried.')
  const failed = counter('parley_deliveries_failed_total', 'Deliveries that failed for good.')
  const abandoned = counter('parley_deliveries_handovers_total', 'Cases taken from an unresponsive chatbot.')
  const events = new Counter({
    name: 'parley_event_deliveries_total',
    help: 'Attempts to deliver events to event endpoints, per endpoint and outcome (sent, retry, failed).',
    labelNames: ['endpoint', 'outcome'],
    registers: [registry],
  })
  const lag = new Gauge({
    name: 'parley_deliveries_lag_seconds',
    help: 'How long the oldest due delivery has been waiting.',
    registers: [registry],
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
  usage('parley_file_bytes', 'Bytes of uploaded files stored, per organization (its quota use).', 'bytes')
  const schema = {
    summary: 'Prometheus metrics (text exposition format)',
    tags: ['operations'],
    security: SECURITY.public,
    response: { 200: plainText('The metrics.') },
  }
  app.get('/metrics', { schema }, async (_request, reply) => {
    reply.type(registry.contentType)
    return registry.metrics()
  })
  return {
    delivery: {
      sent: () => sent.inc(),
      retried: () => retried.inc(),
      failed: () => failed.inc(),
      handedOver: () => abandoned.inc(),
      lag: (seconds: number) => lag.set(seconds),
      event: (endpoint: string, outcome: string) => events.inc({ endpoint, outcome }),
    },
  }
}
