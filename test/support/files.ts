import { fileStorage } from '../../src/storage/files/index.js'

/** Uploads in the test's data directory, at most 25 MiB each (as Parley's default). */
export const testFileStorage = (dataDir: string) =>
  fileStorage({ dataDir, fileStorage: { kind: 'disk' }, uploadMaxBytes: 25 * 1024 * 1024 })
