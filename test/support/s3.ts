import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import S3rver from 's3rver'
import type { S3Settings } from '../../src/config/config.js'

/**
 * An S3-compatible server of the test's own (npm `s3rver`, keeping objects in a temporary
 * directory) with one bucket, and the settings that reach it as a self-hosted store would be reached.
 */
export async function startS3(
  bucket = 'parley',
): Promise<{ settings: S3Settings; stop: () => Promise<void> }> {
  const directory = mkdtempSync(join(tmpdir(), 'parley-s3-'))
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  })
  const { port } = await server.run()
  return {
    settings: {
      bucket,
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    },
    stop: async () => {
      await server.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
