import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { startCheckpointer } from '../../src/storage/checkpointer.js'
import { loadSqlite } from '../../src/storage/sqlite-driver.js'

const SQLite = loadSqlite()

// SQLite's checkpointer (storage/checkpointer.ts) copies the write-ahead log into the database file
// on a thread of its own, which runs only while there is writing: it starts when the log changes
// and stops once it has had nothing new to copy for a while (a Node thread is some 10 MB that an
// idle server does not need). Here only the thread copies: the writer's own checkpoints are off.

/** A database in WAL mode with a table, whose connection never checkpoints by itself. */
function openDatabase() {
  const dir = mkdtempSync(join(tmpdir(), 'parley-checkpointer-'))
  const file = join(dir, 'parley.db')
  const db = new SQLite(file)
  db.pragma('journal_mode = WAL')
  db.pragma('wal_autocheckpoint = 0')
  db.exec('create table t (x text)')
  return { dir, file, db }
}

describe('SQLite: the checkpointer thread', () => {
  test('starts when the log is written, copies it, stops when idle, and starts again on the next write', async () => {
    const { dir, file, db } = openDatabase()
    const checkpointer = startCheckpointer(file, { everyMs: 10, idleMs: 500 })
    const insert = db.prepare('insert into t values (?)')
    const poll = { timeout: 10_000, interval: 5 }
    try {
      await expect.poll(() => checkpointer.running, poll).toBe(false)
      const empty = statSync(file).size

      insert.run('a'.repeat(400_000))
      await expect.poll(() => statSync(file).size - empty, poll).toBeGreaterThan(400_000)
      await expect.poll(() => checkpointer.running, poll).toBe(false)

      const copied = statSync(file).size
      insert.run('b'.repeat(400_000))
      await expect.poll(() => checkpointer.running, poll).toBe(true)
      await expect.poll(() => statSync(file).size - copied, poll).toBeGreaterThan(400_000)
      await expect.poll(() => checkpointer.running, poll).toBe(false)
    } finally {
      await checkpointer.stop()
      db.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('stopping ends a running thread, its connection closed', async () => {
    const { dir, file, db } = openDatabase()
    const checkpointer = startCheckpointer(file, { everyMs: 10, idleMs: 60_000 })
    try {
      await expect.poll(() => checkpointer.running, { timeout: 10_000, interval: 5 }).toBe(true)
      await checkpointer.stop()
      expect(checkpointer.running).toBe(false)
      // The last connection to close removes the log: the thread's is closed already.
      db.close()
      expect(statSync(`${file}-wal`, { throwIfNoEntry: false })).toBeUndefined()
    } finally {
      await checkpointer.stop()
      if (db.open) db.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
