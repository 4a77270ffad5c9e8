import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { send } from './support/app.js'
import { runCLI, startServerProcess } from './support/processes.js'

// The data directory and the embedded database's files are private to Parley's user, as
// master.key is: the server runs as users run it (a child process with the usual umask 022).

const root = mkdtempSync(join(tmpdir(), 'parley-modes-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const modeOf = (path: string) => statSync(path).mode & 0o777
const FILES = ['parley.db', 'parley.db-wal', 'parley.db-shm']

test('DATA_DIR is 0700 and parley.db, -wal and -shm are 0600, also when fixing an older data directory', async () => {
  const DATA_DIR = join(root, 'data')
  const server = await startServerProcess({ DATA_DIR })
  try {
    // Writes while the server holds the database: the WAL and its index exist now.
    expect((await runCLI(['org', 'create', '--name', 'Private'], { DATA_DIR })).code).toBe(0)
    expect((await send(`${server.url}/readyz`, { method: 'GET' })).status).toBe(200)
    expect(modeOf(DATA_DIR)).toBe(0o700)
    for (const file of FILES) {
      expect(existsSync(join(DATA_DIR, file))).toBe(true)
      expect([file, modeOf(join(DATA_DIR, file))]).toEqual([file, 0o600])
    }
  } finally {
    server.child.kill('SIGTERM')
    await server.exited
  }

  // A data directory left readable by an older version is made private on the next start.
  chmodSync(DATA_DIR, 0o755)
  for (const file of FILES) if (existsSync(join(DATA_DIR, file))) chmodSync(join(DATA_DIR, file), 0o644)
  const again = await startServerProcess({ DATA_DIR })
  try {
    expect(modeOf(DATA_DIR)).toBe(0o700)
    for (const file of FILES)
      if (existsSync(join(DATA_DIR, file)))
        expect([file, modeOf(join(DATA_DIR, file))]).toEqual([file, 0o600])
  } finally {
    again.child.kill('SIGTERM')
    await again.exited
  }
})
