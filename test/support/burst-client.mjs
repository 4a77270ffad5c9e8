// Test-only, run in a worker thread: a burst of connections from one address and then one request
// from another, all connected and written while the thread that runs the server is blocked (it
// waits on `ready`), so the server finds them all queued at once, as it would under a flood.
// Posts the order in which the answers came: 'burst' or 'other' per answer.
import { connect } from 'node:net'
import { parentPort, workerData } from 'node:worker_threads'

const { port, count, burstAddress, otherAddress, ready } = workerData
const request = 'GET /healthz HTTP/1.1\r\nHost: parley.test\r\nConnection: close\r\n\r\n'
const order = []
let written = 0
let answered = 0

function ask(name, localAddress) {
  const socket = connect({ host: '127.0.0.1', port, localAddress })
  let text = ''
  socket.on('error', () => {})
  socket.on('connect', () =>
    socket.write(request, () => {
      // Every request is in the server's socket buffers: let the server's thread go on.
      if (++written === count + 1) {
        Atomics.store(ready, 0, 1)
        Atomics.notify(ready, 0)
      }
    }),
  )
  socket.on('data', (chunk) => {
    text += chunk
  })
  socket.on('close', () => {
    order.push(text.startsWith('HTTP/1.1 200') ? name : `${name} (no answer)`)
    if (++answered === count + 1) parentPort.postMessage(order)
  })
}

for (let i = 0; i < count; i++) ask('burst', burstAddress)
ask('other', otherAddress)
