import type { Registry } from 'prom-client'

/**
 * The uploads' limits (docs/reference/quotas.md), how often each refused an upload, and what the
 * organization that keeps the most unsent files keeps: how near the fullest one is to its quota,
 * without naming any organization.
 */
type Limit = 'userFiles' | 'userBytes' | 'organizationFiles' | 'organizationBytes' | 'perMinute'

export interface UploadReport {
  limits: Readonly<Record<Limit, number>>
  refusals: Readonly<Record<Limit, number>>
  fullest(): Promise<{ files: number; bytes: number }>
}

/** `userFiles` as a label value: `user_files`. */
const label = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)

/** The upload metrics in `registry`, each read from `report` at a scrape. */
export function uploadMetrics(
  { Counter, Gauge }: Pick<typeof import('prom-client'), 'Counter' | 'Gauge'>,
  registry: Registry,
  report: UploadReport,
): void {
  new Gauge({
    name: 'parley_upload_limit',
    help: 'Limits of uploads: unsent files and bytes per user and per organization, uploads a minute per user.',
    labelNames: ['limit'],
    registers: [registry],
    collect() {
      for (const [name, value] of Object.entries(report.limits)) this.set({ limit: label(name) }, value)
    },
  })
  new Counter({
    name: 'parley_upload_refusals_total',
    help: 'Uploads refused by a limit of parley_upload_limit, on this instance.',
    labelNames: ['limit'],
    registers: [registry],
    collect() {
      this.reset()
      for (const [name, count] of Object.entries(report.refusals)) this.inc({ limit: label(name) }, count)
    },
  })
  new Gauge({
    name: 'parley_unsent_fullest_organization',
    help:
      'Files (measure="files") and bytes (measure="bytes") uploaded and not sent of the organization that ' +
      'keeps the most: its use of the limits organization_files and organization_bytes.',
    labelNames: ['measure'],
    registers: [registry],
    async collect() {
      const fullest = await report.fullest()
      this.set({ measure: 'files' }, fullest.files)
      this.set({ measure: 'bytes' }, fullest.bytes)
    },
  })
}
