import { mkdtempSync, rmSync } from 'node:fs'
import type { Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import S3rver from 's3rver'
import type { S3Settings } from '../../src/config/config.js'

/**
 * An S3-compatible server of the test's own (npm `s3rver`, keeping objects in a temporary
 * directory) with one bucket, and the settings that reach it as a self-hosted store would be
 * reached. `down()` stops it and `up()` starts it again on the same port with the same objects,
 * as a store that restarts.
 */
export async function startS3(bucket = 'parley') {
  const directory = mkdtempSync(join(tmpdir(), 'parley-s3-'))
  let port = 0
  let server: S3rver | undefined
  const up = async () => {
    server = new S3rver({
      port,
      address: '127.0.0.1',
      silent: true,
      directory,
      configureBuckets: [{ name: bucket }],
    })
    port = (await server.run()).port
  }
  const down = async () => {
    if (!server) return
    // s3rver keeps its node:http server here; a store that stops drops its connections, so a
    // download holding one must not keep it up.
    const { httpServer } = server as S3rver & { httpServer: Server }
    const closing = server.close()
    httpServer.closeAllConnections()
    await closing
    server = undefined
  }
  await up()
  const settings: S3Settings = {
    bucket,
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  }
  return {
    settings,
    up,
    down,
    stop: async () => {
      await down()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
