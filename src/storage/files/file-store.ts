import type { Readable } from 'node:stream'

/**
 * Where uploaded files' bytes live: the data directory (one instance, zero configuration) or
 * S3-compatible object storage (several instances). Keys are Parley's (`<organizationID>/<fileID>`);
 * what a file is (its name, type, owner) is in the database, never in the store.
 */
export interface FileStore {
  /** Stores the finished temporary file at `path` under `key` (the store takes it over). */
  put(key: string, path: string, size: number, mediaType: string): Promise<void>
  /** The bytes stored under `key`, or undefined when there are none. */
  get(key: string): Promise<Readable | undefined>
  /** Removes them; removing what is not there is no error. */
  delete(key: string): Promise<void>
  /** Lets go of connections, if any. */
  close(): void
}
