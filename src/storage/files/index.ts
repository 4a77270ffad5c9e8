import { join } from 'node:path'
import type { Config, UploadLimits } from '../../config/config.js'
import { DiskFileStore } from './disk-store.js'
import type { FileStore } from './file-store.js'
import { S3FileStore } from './s3-store.js'

/** Where uploads go as the configuration says, and where they wait while they arrive. */
export function fileStorage(
  config: Pick<Config, 'dataDir' | 'fileStorage' | 'uploadMaxBytes' | 'uploadLimits'>,
): {
  store: FileStore
  uploadDir: string
  maxBytes: number
  limits: UploadLimits
} {
  return {
    store:
      config.fileStorage.kind === 's3'
        ? new S3FileStore(config.fileStorage.s3)
        : new DiskFileStore(join(config.dataDir, 'files')),
    uploadDir: join(config.dataDir, 'uploads'),
    maxBytes: config.uploadMaxBytes,
    limits: config.uploadLimits,
  }
}
