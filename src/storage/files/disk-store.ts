import { createReadStream } from 'node:fs'
import { chmod, copyFile, mkdir, rename, rm, stat, unlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import type { FileStore } from './file-store.js'

/**
 * Files in `DATA_DIR/files`, one per key, private to Parley's user like the rest of the data
 * directory: whoever wrote the file (an upload, sharp's thumbnail) and with whatever umask, it is
 * 0600 before it is in place. A file appears whole or not at all: it is renamed into place.
 */
export class DiskFileStore implements FileStore {
  constructor(private readonly root: string) {}

  async put(key: string, path: string): Promise<void> {
    const target = this.pathOf(key)
    await mkdir(dirname(target), { recursive: true, mode: 0o700 })
    await chmod(path, 0o600)
    try {
      await rename(path, target)
    } catch (error) {
      // The temporary file is on another file system: copy it over, then rename within this one.
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
      await copyFile(path, `${target}.part`)
      await rename(`${target}.part`, target)
      await unlink(path)
    }
  }

  async get(key: string): Promise<Readable | undefined> {
    const path = this.pathOf(key)
    const found = await stat(path).catch(() => undefined)
    return found?.isFile() ? createReadStream(path) : undefined
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true })
  }

  close(): void {}

  /** Keys are Parley's own (IDs, no dots or slashes but the one between): no way out of the root. */
  private pathOf(key: string): string {
    if (!/^[\w-]+\/[\w.-]+$/.test(key) || key.includes('..')) throw new Error(`Bad file key ${key}`)
    return join(this.root, key)
  }
}
