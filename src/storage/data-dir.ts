import { chmodSync, existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'

// DATA_DIR holds the embedded database and master.key: readable by Parley's user only. The
// directory is 0700 (so nothing in it is reachable by others, whatever its mode) and the
// database's files are 0600 too. SQLite creates its -wal and -shm files with the mode of the
// database file, so making parley.db private before the first write covers them; files left
// from an older version are fixed here too.

export const DATABASE_FILE = 'parley.db'
const DATABASE_FILES = [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`]

/** Creates DATA_DIR if need be, and makes it private to the owner. */
export function privateDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  chmodSync(dataDir, 0o700)
}

/** Makes the database's files that exist private to the owner. */
export function privateDatabaseFiles(dataDir: string): void {
  for (const name of DATABASE_FILES) {
    const path = join(dataDir, name)
    if (existsSync(path)) chmodSync(path, 0o600)
  }
}
