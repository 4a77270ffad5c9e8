import { createReadStream } from 'node:fs'
import { unlink } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import type { S3Client } from '@aws-sdk/client-s3'
import type { S3Settings } from '../../config/config.js'
import { isUnavailable, StoreUnavailable } from '../../errors/faults.js'
import type { FileStore } from './file-store.js'

type SDK = typeof import('@aws-sdk/client-s3')

/** Files as objects of one bucket of S3-compatible storage, shared by every instance. */
export class S3FileStore implements FileStore {
  /** The AWS SDK is loaded with the first request (a quarter of a second of start-up otherwise). */
  private sdk: Promise<{ s3: SDK; client: S3Client }> | undefined

  constructor(private readonly settings: S3Settings) {}

  async put(key: string, path: string, size: number, mediaType: string): Promise<void> {
    const { bucket } = this.settings
    const body = createReadStream(path)
    await this.guarded(({ s3, client }) =>
      client.send(
        new s3.PutObjectCommand({
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
      const object = await this.guarded(({ s3, client }) =>
        client.send(new s3.GetObjectCommand({ Bucket: this.settings.bucket, Key: key })),
      )
      return object.Body as Readable
    } catch (error) {
      if ((error as Error).name === 'NoSuchKey') return undefined
      throw error
    }
  }

  async delete(key: string): Promise<void> {
    await this.guarded(({ s3, client }) =>
      client.send(new s3.DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key })),
    )
  }

  close(): void {
    void this.sdk?.then(({ client }) => client.destroy())
  }

  private connect() {
    const { settings } = this
    this.sdk ??= import('@aws-sdk/client-s3').then((s3) => ({
      s3,
      client: new s3.S3Client({
        region: settings.region,
        forcePathStyle: settings.forcePathStyle,
        ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
        ...(settings.credentials ? { credentials: settings.credentials } : {}),
        // Checksums only where S3 requires them: many S3-compatible stores do not know the newer
        // (trailing, CRC) ones the SDK would otherwise add to every upload.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
    }))
    return this.sdk
  }

  /** A store that cannot be reached, or answers 5xx (SlowDown, InternalError), is away for now. */
  private async guarded<T>(work: (sdk: { s3: SDK; client: S3Client }) => Promise<T>): Promise<T> {
    const sdk = await this.connect()
    try {
      return await work(sdk)
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode
      if (isUnavailable(error) || status === undefined || status >= 500) throw new StoreUnavailable(error)
      throw error
    }
  }
}
