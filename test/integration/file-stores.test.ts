import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buffer } from 'node:stream/consumers'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { DiskFileStore } from '../../src/storage/files/disk-store.js'
import type { FileStore } from '../../src/storage/files/file-store.js'
import { S3FileStore } from '../../src/storage/files/s3-store.js'
import { startS3 } from '../support/s3.js'

// One suite for both stores of uploaded files: the data directory, and S3-compatible storage
// (a real S3-compatible server started here).

const drivers: Record<string, () => Promise<{ store: FileStore; stop: () => Promise<void> }>> = {
  disk: async () => {
    const root = mkdtempSync(join(tmpdir(), 'parley-files-'))
    return { store: new DiskFileStore(root), stop: async () => rmSync(root, { recursive: true }) }
  },
  s3: async () => {
    const s3 = await startS3()
    const store = new S3FileStore(s3.settings)
    const stop = async () => {
      store.close()
      await s3.stop()
    }
    return { store, stop }
  },
}

for (const [name, start] of Object.entries(drivers)) {
  describe(`file store: ${name}`, () => {
    let store: FileStore
    let stop: () => Promise<void>
    const scratch = mkdtempSync(join(tmpdir(), 'parley-uploads-'))
    /** A finished upload in the scratch directory, as the upload path leaves it for the store. */
    const upload = (bytes: Buffer) => {
      const path = join(scratch, randomBytes(8).toString('hex'))
      writeFileSync(path, bytes)
      return path
    }
    beforeAll(async () => ({ store, stop } = await start()))
    afterAll(async () => {
      await stop()
      rmSync(scratch, { recursive: true })
    })

    test('stores, gives back byte for byte, and takes over the temporary file', async () => {
      const bytes = randomBytes(100_000)
      const path = upload(bytes)
      await store.put('org1/file1', path, bytes.length, 'application/octet-stream')
      expect(existsSync(path)).toBe(false)
      const read = await store.get('org1/file1')
      expect(Buffer.compare(await buffer(read as NodeJS.ReadableStream), bytes)).toBe(0)
    })

    test('a file of 30 MiB goes through as a stream', async () => {
      const bytes = randomBytes(30 * 1024 * 1024)
      await store.put('org1/big', upload(bytes), bytes.length, 'video/mp4')
      const read = await buffer((await store.get('org1/big')) as NodeJS.ReadableStream)
      expect(read.length).toBe(bytes.length)
      expect(Buffer.compare(read, bytes)).toBe(0)
    })

    test('what is not there is undefined; deleting it twice is no error', async () => {
      expect(await store.get('org1/never')).toBeUndefined()
      await store.put('org1/gone', upload(Buffer.from('bye')), 3, 'text/plain')
      await store.delete('org1/gone')
      await store.delete('org1/gone')
      expect(await store.get('org1/gone')).toBeUndefined()
    })

    test('putting a key again replaces its bytes', async () => {
      await store.put('org2/same', upload(Buffer.from('first')), 5, 'text/plain')
      await store.put('org2/same', upload(Buffer.from('second')), 6, 'text/plain')
      expect((await buffer((await store.get('org2/same')) as NodeJS.ReadableStream)).toString()).toBe(
        'second',
      )
    })
  })
}

describe('file store: disk, privately', () => {
  test('directories are 0700 and files 0600; a key cannot leave the root', async () => {
    const root = mkdtempSync(join(tmpdir(), 'parley-files-'))
    const store: FileStore = new DiskFileStore(root)
    const path = join(root, 'upload.tmp')
    writeFileSync(path, 'secret', { mode: 0o600 })
    await store.put('org9/file', path, 6, 'text/plain')
    expect(statSync(join(root, 'org9')).mode & 0o777).toBe(0o700)
    expect(statSync(join(root, 'org9', 'file')).mode & 0o777).toBe(0o600)
    for (const key of ['../../etc/passwd', 'org9/../../x', '/abs/path', 'org9/a/b'])
      await expect(store.get(key)).rejects.toThrow(/Bad file key/)
    rmSync(root, { recursive: true })
  })
})
