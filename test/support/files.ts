import { loadConfig } from '../../src/config/config.js'
import { fileStorage } from '../../src/storage/files/index.js'

/** Uploads in the test's data directory, with Parley's default limits (25 MiB each, the quotas). */
export const testFileStorage = (dataDir: string) => fileStorage({ ...loadConfig({}), dataDir })
