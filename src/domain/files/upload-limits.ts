import type { Kysely } from 'kysely'
import type { UploadLimits } from '../../config/config.js'
import { AppError, RateLimited } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { AttemptCounter } from '../../storage/counters.js'
import type { Database } from '../../storage/database.js'
import type { Schema } from '../../storage/schema.js'
import type { Repositories } from '../repositories.js'
import type { Uploader } from './uploads.js'

/** Which limit refused an upload (the label of parley_upload_refusals_total). */
export type UploadLimit = keyof UploadLimits

/** Refusals so far, per limit: what /metrics reports. */
export type UploadRefusals = Record<UploadLimit, number>

const WINDOW_MS = 60_000
const MiB = 1024 * 1024

/**
 * The limits of uploads (docs/reference/quotas.md): how many files one uploader starts a minute,
 * and what one uploader and one organization keep uploaded and not sent yet (files and bytes).
 * Chatbots are the organization's own backend, answering many visitors at once: only the
 * organization's quotas bind them.
 */
export class UploadLimiter {
  readonly refusals: UploadRefusals = {
    userFiles: 0,
    userBytes: 0,
    organizationFiles: 0,
    organizationBytes: 0,
    perMinute: 0,
  }

  constructor(
    private readonly deps: {
      database: Database
      repositories: Pick<Repositories, 'files'>
      clock: Clock
      /** Attempts per uploader and minute: in Redis with several instances. */
      counter: AttemptCounter
      limits: UploadLimits
    },
  ) {}

  get limits(): UploadLimits {
    return this.deps.limits
  }

  /**
   * Before the body is read: counts the attempt against the uploader's rate (429 with Retry-After
   * past it), and refuses (409/40902) an upload that no quota has room for, whatever its size.
   */
  async admit(uploader: Uploader): Promise<void> {
    if (!isChatbot(uploader)) await this.countAttempt(uploader)
    await this.check(this.deps.database.db, uploader, 0)
  }

  /**
   * In the transaction that stores the file's row: the quotas with the file's `size` counted in,
   * one upload of the organization at a time, so that two uploads cannot both take the last room.
   */
  async reserve(trx: Kysely<Schema>, uploader: Uploader, size: number): Promise<void> {
    const { repositories, database } = this.deps
    await repositories.files.lockOrganizationUploads(trx, uploader.organizationID, database.dialect)
    await this.check(trx, uploader, size)
  }

  private async countAttempt(uploader: Uploader): Promise<void> {
    const now = this.deps.clock.now()
    const window = Math.floor(now / WINDOW_MS)
    const key = `parley:uploads:${uploader.senderID}:${window}`
    if ((await this.deps.counter.add(key, WINDOW_MS)) <= this.limits.perMinute) return
    this.refusals.perMinute++
    const retryAfter = Math.ceil(((window + 1) * WINDOW_MS - now) / 1000)
    throw new RateLimited(`too many uploads: at most ${this.limits.perMinute} a minute`, retryAfter)
  }

  /** Refuses when the unsent files, with one more of `size` bytes, would pass a quota. */
  private async check(db: Kysely<Schema>, uploader: Uploader, size: number): Promise<void> {
    const { organizationID, senderID } = uploader
    const usage = await this.deps.repositories.files.unsentUsage(db, organizationID, senderID)
    const { limits } = this
    // A quota of bytes is reached when it has no room left: an empty file is no upload.
    const bytes = Math.max(size, 1)
    const quotas: [UploadLimit, number, string][] = [
      [
        'userFiles',
        usage.userFiles + 1,
        `you have ${limits.userFiles} files uploaded and not sent, the most one may keep`,
      ],
      [
        'userBytes',
        usage.userBytes + bytes,
        `your files uploaded and not sent would take more than ${mib(limits.userBytes)} MiB`,
      ],
      [
        'organizationFiles',
        usage.organizationFiles + 1,
        `the organization keeps ${limits.organizationFiles} files uploaded and not sent, its most`,
      ],
      [
        'organizationBytes',
        usage.organizationBytes + bytes,
        `the organization's files uploaded and not sent would take more than ${mib(limits.organizationBytes)} MiB`,
      ],
    ]
    const passed = quotas.slice(isChatbot(uploader) ? 2 : 0).find(([limit, wanted]) => wanted > limits[limit])
    if (!passed) return
    this.refusals[passed[0]]++
    throw new AppError(
      'limitReached',
      `Upload quota reached: ${passed[2]} (send them, or they expire a day after upload)`,
      'file',
    )
  }
}

const isChatbot = (uploader: Uploader) => uploader.senderID.startsWith('chatbot:')
const mib = (bytes: number) => Math.round((bytes / MiB) * 10) / 10
