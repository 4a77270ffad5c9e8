import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/** How often the checkpointer copies the write-ahead log into the database file. */
const EVERY_MS = 250

// The thread's code: its own connection, a PASSIVE checkpoint every EVERY_MS (it neither waits for
// nor blocks readers and writers), and stopping when told.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads')
const SQLite = require(workerData.driver)
const db = new SQLite(workerData.file)
db.pragma('busy_timeout = 5000')
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)') } catch {}
}, workerData.everyMs)
parentPort.once('message', () => { clearInterval(timer); db.close(); parentPort.close() })
`

/**
 * SQLite's checkpoints, off the event loop. A commit that fills the write-ahead log past its limit
 * copies the log into the database file before it returns: on the server's thread, that is a
 * third of a busy server's SQLite time, in bursts. So the server's connection checkpoints only as a
 * last resort (a log of `fallbackPages`), and a thread of its own checkpoints every quarter second,
 * copying each page changed meanwhile once, however often it changed.
 */
export function startCheckpointer(file: string): { fallbackPages: number; stop(): Promise<void> } {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3')
  const worker = new Worker(THREAD, { eval: true, workerData: { driver, file, everyMs: EVERY_MS } })
  worker.unref()
  // A thread that fails (it cannot open the file, say) leaves the fallback to the server.
  worker.on('error', () => {})
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
  return {
    fallbackPages: 20_000,
    stop: async () => {
      // Held open until it has closed its connection (unref'd, it would not keep a process alive).
      worker.ref()
      worker.postMessage('stop')
      await exited
    },
  }
}
