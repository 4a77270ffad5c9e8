import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { send } from '../support/app.js'
import { validTicketRequest } from '../support/fixtures.js'
import { runCLI, runCLIJSON, startServerProcess } from '../support/processes.js'
import { png, upload } from '../support/uploads.js'

// The data directory and every file Parley writes in it (the embedded database's, master.key,
// uploads and their thumbnails) are private to Parley's user: the server runs as users run it (a
// child process with the usual umask 022).

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
}, 90_000) // a server, a CLI run and a second server, one after another: 30 s is too little on a busy machine

/** Every entry below `dir` with its mode, directories first. */
function modesBelow(dir: string): { path: string; kind: 'dir' | 'file'; mode: number }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).map((entry) => {
    const path = join(entry.parentPath, entry.name)
    return { path, kind: entry.isDirectory() ? 'dir' : 'file', mode: modeOf(path) }
  })
}

test('uploads, thumbnails and every other file in DATA_DIR are 0600, every directory 0700', async () => {
  const DATA_DIR = join(root, 'uploads')
  const server = await startServerProcess({ DATA_DIR })
  try {
    const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Files'], { DATA_DIR })
    const { serverKey } = await runCLIJSON(['server-key', 'create', '--org', organizationID], { DATA_DIR })
    const ticket = await send(`${server.url}/v1/server/auth_ticket/request`, {
      method: 'POST',
      headers: { 'server-key': serverKey, 'content-type': 'application/json' },
      body: JSON.stringify(validTicketRequest({ xcUserID: 'ada' })),
    })
    const tokens = await send(`${server.url}/v1/auth/access_token/request`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ticket.json.data.ticket}` },
    })
    const headers = { authorization: `Bearer ${tokens.json.data.accessToken}` }
    const target = { url: server.url } as Parameters<typeof upload>[0]
    const image = await upload(target, '/v1/chat/file/upload', await png(64, 48), {
      fileName: 'photo.png',
      type: 'image/png',
      headers,
    })
    expect(image.json.data.file.thumbnailURL).not.toBe('')
    const pdf = Buffer.from('%PDF-1.4\n%\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n')
    const document = await upload(target, '/v1/chat/file/upload', pdf, {
      fileName: 'a.pdf',
      type: 'application/pdf',
      headers,
    })
    expect(document.status).toBe(200)

    const entries = modesBelow(DATA_DIR)
    expect(entries.filter((entry) => entry.path.endsWith('.thumbnail'))).toHaveLength(1)
    const wrong = entries.filter((entry) => entry.mode !== (entry.kind === 'dir' ? 0o700 : 0o600))
    expect(wrong).toEqual([])
  } finally {
    server.child.kill('SIGTERM')
    await server.exited
  }
}, 90_000) // a server and two CLI runs, one after another: 30 s is too little on a busy machine
