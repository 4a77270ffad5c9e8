// The hostile run's probe (bench/hostile.ts), in a thread of its own so that the attacks, which
// keep the main thread busy, do not delay it: GET /healthz on a new connection from 127.0.0.250
// every 20 ms until told to stop, then posts its figures. Plain JavaScript: a worker thread does
// not inherit tsx.
import { connect } from 'node:net'
import { parentPort, workerData } from 'node:worker_threads'

const url = new URL(workerData)

/** One GET /healthz: its time in ms, or undefined if it failed (or took over 2 s). */
function probe() {
  const started = performance.now()
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), localAddress: '127.0.0.250' })
    let text = ''
    const done = (ok) => {
      socket.destroy()
      resolve(ok ? performance.now() - started : undefined)
    }
    socket.setTimeout(2000, () => done(false))
    socket.on('error', () => done(false))
    socket.on('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n'))
    socket.on('data', (chunk) => {
      text += chunk
      if (text.includes('\r\n\r\n')) done(text.startsWith('HTTP/1.1 200'))
    })
  })
}

const times = []
let failed = 0
let running = true
parentPort.once('message', () => {
  running = false
})
while (running) {
  const time = await probe()
  if (time === undefined) failed++
  else times.push(time)
  await new Promise((resolve) => setTimeout(resolve, 20))
}
times.sort((a, b) => a - b)
const at = (q) => (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(1)
parentPort.postMessage(
  `healthz: ${times.length} ok, ${failed} failed; p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`,
)
