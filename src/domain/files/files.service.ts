import { mkdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import type { Kysely, Selectable } from 'kysely'
import { AppError, paramError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { FileStore } from '../../storage/files/file-store.js'
import type { FilesTable, Schema } from '../../storage/schema.js'
import { fileIDOf, type MessageContent } from '../messages/message-types.js'
import type { Repositories } from '../repositories.js'
import type { FileLinks, FileVariant, LinkLifetime } from './file-links.js'
import { DEFAULT_FILE_TYPES, fitsMessageType, INLINE_IMAGE_TYPES, sniffMediaType } from './file-types.js'
import type { UploadLimiter } from './upload-limits.js'
import { cleanFileName, describeImage, spool, type Uploader } from './uploads.js'

/** A stored file as the APIs show it; `url` and `thumbnailURL` are signed links, good for an hour or two. */
export interface FileObject {
  fileID: string
  url: string
  /** A WebP of at most 320×320 for images Parley can read; empty otherwise. */
  thumbnailURL: string
  mediaType: string
  size: number
  fileName: string
  width: number | null
  height: number | null
}

export interface FilesDependencies {
  database: Database
  repositories: Pick<Repositories, 'files'>
  clock: Clock
  store: FileStore
  links: FileLinks
  /** Where uploads are written while they arrive and are checked (DATA_DIR/uploads). */
  uploadDir: string
  maxBytes: number
  /** The uploaders' rate and the quotas of unsent files. */
  limiter: UploadLimiter
}

type Trx = Kysely<Schema>
const DAY = 86_400_000
/** Files a sweep takes at a time: a short statement, then the event loop turns before the next. */
const SWEEP_BATCH = 200
const keyOf = (file: { organization_id: string; id: string }, variant: FileVariant = 'file') =>
  `${file.organization_id}/${file.id}${variant === 'thumbnail' ? '.thumbnail' : ''}`

/**
 * Uploaded files: taken in (streamed to disk, sniffed, checked against the organization's types,
 * images measured and thumbnailed), carried by one message of their uploader's, served by signed
 * links, and gone with their message, or after a day when never sent.
 */
export class Files {
  constructor(private readonly deps: FilesDependencies) {}

  get maxBytes(): number {
    return this.deps.maxBytes
  }

  async upload(
    uploader: Uploader,
    source: { stream: Readable; fileName: string | undefined },
  ): Promise<FileObject> {
    const { database, store, uploadDir, maxBytes, limiter } = this.deps
    await limiter.admit(uploader)
    const id = database.ids.next()
    const temp = join(uploadDir, `${id}.upload`)
    const thumbnail = join(uploadDir, `${id}.thumbnail`)
    await mkdir(uploadDir, { recursive: true, mode: 0o700 })
    try {
      const size = await spool(source.stream, temp, maxBytes)
      if (size === 0) throw paramError('file', 'is empty')
      const mediaType = await sniffMediaType(temp)
      if (!(await this.typesOf(uploader.organizationID)).includes(mediaType))
        throw new AppError('unsupportedMediaType', `Files of type ${mediaType} are not accepted here`)
      const image = (INLINE_IMAGE_TYPES as readonly string[]).includes(mediaType)
        ? await describeImage(temp, thumbnail)
        : undefined
      const row = {
        id,
        organization_id: uploader.organizationID,
        uploader_id: uploader.senderID,
        file_name: cleanFileName(source.fileName),
        media_type: mediaType,
        size,
        width: image?.width ?? null,
        height: image?.height ?? null,
        has_thumbnail: image ? 1 : 0,
        message_id: null,
        room_id: null,
        created: this.deps.clock.now(),
        deleted_at: null,
      }
      if (image)
        await store.put(keyOf(row, 'thumbnail'), thumbnail, (await stat(thumbnail)).size, 'image/webp')
      await store.put(keyOf(row), temp, size, mediaType)
      await database
        .transaction(async (trx) => {
          await limiter.reserve(trx, uploader, size)
          await this.deps.repositories.files.insertFile(trx, row)
        })
        .catch(async (error: unknown) => {
          await this.removeBytes(row).catch(() => {})
          throw error
        })
      return this.objectOf(row)
    } finally {
      await rm(temp, { force: true })
      await rm(thumbnail, { force: true })
    }
  }

  /**
   * A message's content with the uploaded file it names (`data.fileID`) described in its data:
   * the sender's own, in their organization, fitting the message type. Content without a fileID
   * is as it was (a URL somebody else hosts). Read in the message's transaction, as `attach`.
   */
  async contentWithFile(trx: Trx, sender: Uploader, content: MessageContent): Promise<MessageContent> {
    const fileID = fileIDOf(content)
    if (fileID === undefined) return content
    const file = await this.deps.repositories.files.findFile(trx, fileID)
    if (!file || file.organization_id !== sender.organizationID || file.uploader_id !== sender.senderID)
      throw new AppError('notFound', `File ${fileID} not found`)
    if (!fitsMessageType(file.media_type, content.type))
      throw paramError('data.fileID', `is a ${file.media_type}, not fit for message type ${content.type}`)
    // What else the data holds (a chatbot's customData) stays; the file's facts replace any URL.
    return { ...content, data: { ...content.data, ...described(file) } }
  }

  /**
   * Gives the file a just stored message carries to it, in the message's transaction; a file
   * another message has already is a conflict (a retry of the same message stores nothing new,
   * so never gets here).
   */
  async attach(trx: Trx, message: { id: string; roomID: string; content: MessageContent }) {
    const fileID = fileIDOf(message.content)
    if (fileID === undefined) return
    if (!(await this.deps.repositories.files.attachFile(trx, fileID, message.id, message.roomID)))
      throw new AppError('conflict', `File ${fileID} was sent already`)
  }

  /**
   * An image the user uploaded, now carried by `holder` (a photo: `photo:<id>`, as a message
   * carries one) and never swept; its links last as long as it does. 40002 if it is no image.
   */
  async carry(trx: Trx, file: FileObject, holder: string) {
    if (!file.thumbnailURL) throw paramError('file', 'must be an image (JPEG, PNG, GIF or WebP)')
    if (!(await this.deps.repositories.files.attachFile(trx, file.fileID, holder, '')))
      throw new AppError('conflict', `File ${file.fileID} was sent already`)
    return this.withLinks({ fileID: file.fileID, fileName: file.fileName, hasThumbnail: true }, 'kept')
  }

  /** Within one link epoch, withLinks makes the same links of the same data. */
  linkEpoch(): number {
    return this.deps.links.epoch()
  }

  /** A message's data with fresh links to the file it carries (`lifetime: 'day'` for chatbots). */

  withLinks(data: Record<string, unknown>, lifetime: LinkLifetime = 'short'): Record<string, unknown> {
    const { fileID, fileName } = data
    if (typeof fileID !== 'string' || typeof fileName !== 'string') return data
    const file = { fileID, fileName }
    const { links } = this.deps
    const thumbnailURL = data.hasThumbnail ? links.url(file, 'thumbnail', lifetime) : ''
    return { ...data, url: links.url(file, 'file', lifetime), thumbnailURL }
  }

  /** The file a signed link names, and its bytes: 403 for a link forged or expired, 404 for no file. */
  async open(fileID: string, variant: FileVariant, link: { expires: number; signature: string }) {
    const verdict = this.deps.links.verify(fileID, variant, link.expires, link.signature)
    if (verdict !== 'valid')
      throw new AppError(
        'forbidden',
        verdict === 'expired' ? 'This link has expired' : 'This link is not valid',
      )
    const { file, bytes } = await this.bytesOf(fileID, variant, () => true)
    // The link is the permission: a cache may keep the bytes as long as the link lasts (a day at
    // most: a photo's link lasts as long as the photo).
    const lasts = Math.min(link.expires - this.deps.clock.now(), DAY)
    return { file, bytes, maxAgeSeconds: Math.floor(lasts / 1000) }
  }

  /**
   * The bytes of a file sent in `roomID` (the caller may read that room): how the TapTalk.io
   * SDKs download by fileID rather than by link. 404 for a file not sent there, or deleted.
   */
  async openInRoom(fileID: string, roomID: string) {
    return this.bytesOf(fileID, 'file', (file) => file.room_id === roomID)
  }

  /** A file that `fits` and is not deleted, and its stored bytes; else 404. */
  private async bytesOf(
    fileID: string,
    variant: FileVariant,
    fits: (file: Selectable<FilesTable>) => boolean,
  ) {
    const file = await this.deps.repositories.files.findFile(this.deps.database.db, fileID)
    const usable = file && file.deleted_at === null && fits(file)
    const bytes = usable ? await this.deps.store.get(keyOf(file, variant)) : undefined
    if (!file || !bytes) throw new AppError('notFound', `File ${fileID} not found`)
    return { file, bytes }
  }

  /** Deleted messages take their files' bytes with them; the rows stay, marked deleted. */
  async deleteOfMessages(messageIDs: readonly string[]): Promise<void> {
    const { database, repositories } = this.deps
    const files = await repositories.files.filesOfMessages(database.db, messageIDs)
    if (files.length === 0) return
    await repositories.files.markFilesDeleted(
      database.db,
      files.map((file) => file.id),
      this.deps.clock.now(),
    )
    await Promise.all(files.map((file) => this.removeBytes(file)))
  }

  /**
   * Removes the files uploaded more than a day ago that no message took, a batch at a time until
   * none is left, letting requests in between batches. Safe beside other instances' sweeps: each
   * claims its batch (Files repository, claimUnsent). Files whose bytes the store would not remove
   * (it is away) are put back for the next sweep, which ends this one. How many it removed.
   */
  async sweepUnsent(batch = SWEEP_BATCH): Promise<number> {
    const { database, repositories } = this.deps
    const claim = { before: this.deps.clock.now() - DAY, limit: batch, dialect: database.dialect }
    for (let removed = 0; ; ) {
      const claimed = await repositories.files.claimUnsent(database.db, claim)
      const failed: Selectable<FilesTable>[] = []
      await Promise.all(claimed.map((file) => this.removeBytes(file).catch(() => failed.push(file))))
      await repositories.files.restoreFiles(database.db, failed)
      removed += claimed.length - failed.length
      if (claimed.length < batch || failed.length > 0) return removed
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  /** The uploads' limits and how often each refused an upload (/metrics). */
  get uploadLimits() {
    return { limits: this.deps.limiter.limits, refusals: this.deps.limiter.refusals }
  }

  /** The unsent files of the organization that keeps the most, and of the one that keeps the most bytes. */
  fullestUnsent() {
    return this.deps.repositories.files.fullestUnsent(this.deps.database.db)
  }

  /** Removes the files the uploader uploaded that no message took (erasure): bytes and rows. */
  async deleteUnsentOf(uploaderID: string): Promise<void> {
    const { database, repositories } = this.deps
    const unsent = await repositories.files.unsentFilesOf(database.db, uploaderID)
    if (unsent.length === 0) return
    await Promise.all(unsent.map((file) => this.removeBytes(file)))
    await repositories.files.deleteFileRows(
      database.db,
      unsent.map((file) => file.id),
    )
  }

  /** How many files, and how many bytes, each organization stores. */
  usagePerOrganization() {
    return this.deps.repositories.files.usagePerOrganization(this.deps.database.db)
  }

  private async removeBytes(file: Selectable<FilesTable>) {
    await this.deps.store.delete(keyOf(file))
    if (file.has_thumbnail) await this.deps.store.delete(keyOf(file, 'thumbnail'))
  }

  private async typesOf(organizationID: string): Promise<readonly string[]> {
    const chosen = await this.deps.repositories.files.fileTypesOf(this.deps.database.db, organizationID)
    return chosen ? (JSON.parse(chosen) as string[]) : DEFAULT_FILE_TYPES
  }

  private objectOf(file: Selectable<FilesTable>): FileObject {
    const data = this.withLinks(described(file))
    return {
      ...(data as Omit<FileObject, 'url' | 'thumbnailURL'>),
      url: String(data.url),
      thumbnailURL: String(data.thumbnailURL),
    }
  }
}

/** What a message carrying the file keeps in its data (links are made as it is read). */
const described = (file: Selectable<FilesTable>) => ({
  fileID: file.id,
  fileName: file.file_name,
  mediaType: file.media_type,
  size: Number(file.size),
  width: file.width,
  height: file.height,
  hasThumbnail: file.has_thumbnail === 1,
})
