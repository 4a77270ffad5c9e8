import { randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { cli, freshStorage, poster, signIn, startService } from './lib.js'

// Upload throughput: one upload at a time and 20 at once, each file 20 MiB, through Parley
// (multipart parsed, spooled to DATA_DIR, sniffed, stored in DATA_DIR/files) next to a plain
// streamed copy of the same bytes on the same disk, one at a time and 20 at once.

const MiB = 1024 * 1024
const SIZE = 20 * MiB
const ROUNDS = 5
const NO_QUOTAS = {
  UPLOAD_USER_UNSENT_FILES: '100000',
  UPLOAD_USER_UNSENT_MB: '1048576',
  UPLOAD_ORG_UNSENT_FILES: '100000',
  UPLOAD_ORG_UNSENT_MB: '1048576',
  UPLOAD_RATE_PER_MINUTE: '100000',
}

export interface UploadFigures {
  name: string
  mibPerSecond: number
  baseline: number
}

/** `count` jobs, `parallel` at a time: the MiB/s they moved together. */
async function throughput(
  count: number,
  parallel: number,
  job: (i: number) => Promise<void>,
): Promise<number> {
  const started = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await job(next++)
    }),
  )
  return (count * SIZE) / MiB / ((performance.now() - started) / 1000)
}

export async function benchUploads(): Promise<UploadFigures[]> {
  const storage = await freshStorage()
  // One uploader's 46 files of 20 MiB in a minute or two: past the default quotas and rate, which
  // this measure of throughput leaves aside (docs/reference/quotas.md).
  const service = await startService(['dist/main.js'], { ...storage.env, UPLOAD_MAX_MB: '25', ...NO_QUOTAS })
  try {
    const { organizationID } = cli(['org', 'create', '--name', 'Bench'], storage.env)
    const { serverKey } = cli(['server-key', 'create', '--org', organizationID as string], storage.env)
    const { auth } = await signIn(poster(service.url), serverKey as string, 'uploader')
    // A PDF's signature, then random bytes: a type the organization takes, nothing to compress.
    const bytes = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(SIZE - 9)])
    const source = join(storage.env.DATA_DIR as string, 'source.pdf')
    writeFileSync(source, bytes)
    const upload = async () => {
      const form = new FormData()
      form.append('file', new Blob([bytes]), 'bench.pdf')
      const response = await fetch(`${service.url}/v1/chat/file/upload`, {
        method: 'POST',
        body: form,
        headers: auth,
      })
      if (response.status !== 200) throw new Error(`upload: ${response.status} ${await response.text()}`)
    }
    const copy = async (i: number) => {
      const target = join(storage.env.DATA_DIR as string, `copy-${i}`)
      await pipeline(createReadStream(source), createWriteStream(target))
      await rm(target)
    }
    await upload() // warm-up
    const rows: UploadFigures[] = []
    for (const parallel of [1, 20]) {
      const count = parallel === 1 ? ROUNDS : parallel * 2
      const baseline = await throughput(count, parallel, copy)
      const mibPerSecond = await throughput(count, parallel, upload)
      rows.push({
        name: `${parallel} upload${parallel > 1 ? 's' : ''} at a time, 20 MiB each`,
        mibPerSecond,
        baseline,
      })
    }
    return rows
  } finally {
    await service.stop()
    await storage.drop()
  }
}

export function printUploads(rows: UploadFigures[]): void {
  console.log('\nUploads (SQLite, files in DATA_DIR) next to a streamed copy on the same disk')
  for (const row of rows)
    console.log(
      `${row.name.padEnd(36)}  ${row.mibPerSecond.toFixed(0).padStart(5)} MiB/s  copy ${row.baseline.toFixed(0).padStart(5)} MiB/s  ${((row.mibPerSecond / row.baseline) * 100).toFixed(1)}% of copy`,
    )
}
