import { statSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import { sqliteDriverPath } from './sqlite-driver.js'

export interface CheckpointerTimes {
  /** How often the thread copies the write-ahead log into the database file (and the log is looked at). */
  everyMs: number
  /** How long the thread goes on with nothing new to copy before it stops. */
  idleMs: number
}

const TIMES: CheckpointerTimes = { everyMs: 250, idleMs: 10_000 }

// The thread's code: its own connection, a PASSIVE checkpoint every everyMs (it neither waits for
// nor blocks readers and writers), and stopping when told, or once the log has been copied in full
// and has not grown for idleTicks checkpoints in a row.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads')
const SQLite = require(workerData.driver)
const db = new SQLite(workerData.file)
db.pragma('busy_timeout = 5000')
let lastLog = -1
let idleTicks = 0
const timer = setInterval(() => {
  let log = -1
  try {
    const [{ busy, log: frames, checkpointed }] = db.pragma('wal_checkpoint(PASSIVE)')
    if (!busy && frames === checkpointed) log = frames
  } catch {}
  idleTicks = log !== -1 && log === lastLog ? idleTicks + 1 : 0
  lastLog = log
  if (idleTicks >= workerData.idleTicks) stop()
}, workerData.everyMs)
function stop() { clearInterval(timer); db.close(); parentPort.close() }
parentPort.once('message', stop)
`

export interface Checkpointer {
  /** The log's size at which the server's own connection checkpoints, as a last resort. */
  fallbackPages: number
  /** Whether the thread is running now (it starts when the log is written, stops when idle). */
  readonly running: boolean
  stop(): Promise<void>
}

/**
 * SQLite's checkpoints, off the event loop. A commit that fills the write-ahead log past its limit
 * copies the log into the database file before it returns: on the server's thread, that is a
 * third of a busy server's SQLite time, in bursts. So the server's connection checkpoints only as a
 * last resort (a log of `fallbackPages`), and a thread of its own checkpoints every quarter second,
 * copying each page changed meanwhile once, however often it changed.
 *
 * The thread runs only while there is writing: a Node thread holds some 10 MB, a tenth of an idle
 * server's memory. The server's loop looks at the log file every quarter second (a stat) and
 * starts the thread when the log's size or time has changed; the thread stops itself after ten
 * seconds with nothing to copy.
 */
export function startCheckpointer(file: string, times: CheckpointerTimes = TIMES): Checkpointer {
  const driver = sqliteDriverPath()
  const workerData = {
    driver,
    file,
    everyMs: times.everyMs,
    idleTicks: Math.ceil(times.idleMs / times.everyMs),
  }
  let worker: Worker | undefined
  let exited = Promise.resolve()
  // A thread that fails (it cannot open the file, say) leaves checkpoints to the server's fallback:
  // it is not started again and again.
  let failed = false
  let stopped = false
  let seen = ''

  const start = () => {
    const thread = new Worker(THREAD, { eval: true, workerData })
    thread.unref()
    thread.on('error', () => {
      failed = true
    })
    exited = new Promise<void>((resolve) =>
      thread.once('exit', () => {
        worker = undefined
        resolve()
      }),
    )
    worker = thread
  }
  /** The log's size and time, or undefined when there is none (or it cannot be looked at). */
  const logState = () => {
    try {
      const log = statSync(`${file}-wal`, { throwIfNoEntry: false })
      return log && `${log.size}:${log.mtimeMs}`
    } catch {
      return undefined
    }
  }
  const look = () => {
    // On the loop itself: a few microseconds, where a stat on libuv's pool would start its threads.
    const now = logState()
    // No log: nothing was written since it was last removed.
    if (now === undefined || now === seen) return
    seen = now
    if (!worker && !failed && !stopped) start()
  }
  const timer = setInterval(look, times.everyMs).unref()

  return {
    fallbackPages: 20_000,
    get running() {
      return worker !== undefined
    },
    stop: async () => {
      stopped = true
      clearInterval(timer)
      // Held open until it has closed its connection (unref'd, it would not keep a process alive).
      worker?.ref()
      worker?.postMessage('stop')
      await exited
    },
  }
}
