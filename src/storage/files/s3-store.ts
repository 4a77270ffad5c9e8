import { createReadStream } from 'node:fs'
import { unlink } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3'
import type { S3Settings } from '../../config/config.js'
import { isUnavailable, StoreUnavailable } from '../../errors/faults.js'
import type { FileStore } from './file-store.js'

/** Files as objects of one bucket of S3-compatible storage, shared by every instance. */
export class S3FileStore implements FileStore {
  private readonly client: S3Client

  constructor(private readonly settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.credentials ? { credentials: settings.credentials } : {}),
      // Checksums only where S3 requires them: many S3-compatible stores do not know the newer
      // (trailing, CRC) ones the SDK would otherwise add to every upload.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    })
  }

  async put(key: string, path: string, size: number, mediaType: string): Promise<void> {
    const { bucket } = this.settings
    const body = createReadStream(path)
    await this.guarded(() =>
      this.client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          ContentLength: size,
          ContentType: mediaType,
        }),
      ),
    )
    await unlink(path)
  }

  async get(key: string): Promise<Readable | undefined> {
    try {
      const object = await this.guarded(() =>
        this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: key })),
      )
      return object.Body as Readable
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined
      throw error
    }
  }

  async delete(key: string): Promise<void> {
    await this.guarded(() =>
      this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key })),
    )
  }

  close(): void {
    this.client.destroy()
  }

  /** A store that cannot be reached, or answers 5xx (SlowDown, InternalError), is away for now. */
  private async guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode
      if (isUnavailable(error) || status === undefined || status >= 500) throw new StoreUnavailable(error)
      throw error
    }
  }
}
