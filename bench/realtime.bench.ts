import { readFileSync } from 'node:fs'
import WebSocket from 'ws'
import { cli, DURATION, freshStorage, poster, type Service, signIn, startService } from './lib.js'

// The real-time goal (issue 4): one instance on SQLite holds IDLE_SOCKETS idle authenticated
// sockets, and moves RATE messages/s between PAIRS pairs of connected users (over the sockets).
const IDLE_SOCKETS = Number(process.env.BENCH_SOCKETS ?? 10_000)
const PAIRS = 1000
const RATE = 2000

export interface RealtimeFigures {
  name: string
  sockets: number
  bytesPerSocket: number
  sentPerSecond: number
  receivedPerSecond: number
  p50: number
  p99: number
  serverCPU: number
  generatorCPU: number
}

interface Peer {
  userID: string
  url: string
  headers: Record<string, string>
}

const rssBytes = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024
const cpuTicks = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return Number(fields[11]) + Number(fields[12]) // utime + stime, in 1/100 s
}

/** Runs `work` over `items`, `concurrency` at a time. */
async function pool<T, R>(items: T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++
        results[index] = await work(items[index] as T)
      }
    }),
  )
  return results
}

function open(peer: Peer): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(peer.url, { headers: peer.headers })
    socket.once('open', () => resolve(socket))
    socket.once('error', reject)
  })
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0

/**
 * Opens IDLE_SOCKETS sockets and measures the server's memory per socket, then has PAIRS
 * senders write to their partners at RATE messages/s for DURATION s, measuring send-to-receive
 * latency at the receivers, and both processes' CPU.
 */
async function measure(
  name: string,
  service: Service,
  peers: Peer[],
  sendFrame: (to: Peer, localID: string, body: string) => string,
): Promise<RealtimeFigures> {
  const pid = service.child.pid as number
  const before = rssBytes(pid)
  const sockets = await pool(peers, 200, open)
  await new Promise((resolve) => setTimeout(resolve, 2000))
  const bytesPerSocket = (rssBytes(pid) - before) / sockets.length

  const latencies: number[] = []
  let measuring = false
  let received = 0
  for (const socket of sockets.slice(PAIRS, 2 * PAIRS)) {
    socket.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as { eventName: string; data: { body: string } }
      if (frame.eventName !== 'chat/sendMessage' || !measuring) return
      received++
      latencies.push(performance.now() - Number(frame.data.body))
    })
  }
  let sequence = 0
  const sendRound = (count: number) => {
    for (let i = 0; i < count; i++) {
      const from = sequence % PAIRS
      sockets[from]?.send(
        sendFrame(peers[PAIRS + from] as Peer, `m-${sequence++}`, String(performance.now())),
      )
    }
  }
  sendRound(PAIRS) // warm-up: opens every pair's room
  await new Promise((resolve) => setTimeout(resolve, 2000))

  const perTick = RATE / 200 // every 5 ms
  measuring = true
  const startSent = sequence
  const startCPU = cpuTicks(pid)
  const startGenerator = process.cpuUsage()
  const started = performance.now()
  const ticker = setInterval(() => sendRound(perTick), 5)
  await new Promise((resolve) => setTimeout(resolve, DURATION * 1000))
  clearInterval(ticker)
  const seconds = (performance.now() - started) / 1000
  const generator = process.cpuUsage(startGenerator)
  const serverCPU = (cpuTicks(pid) - startCPU) / 100 / seconds
  const receivedInWindow = received
  await new Promise((resolve) => setTimeout(resolve, 1000)) // stragglers count for latency only
  measuring = false
  for (const socket of sockets) socket.terminate()

  latencies.sort((a, b) => a - b)
  return {
    name,
    sockets: sockets.length,
    bytesPerSocket,
    sentPerSecond: (sequence - startSent) / seconds,
    receivedPerSecond: receivedInWindow / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    serverCPU,
    generatorCPU: (generator.user + generator.system) / 1e6 / seconds,
  }
}

export async function benchRealtimeBaseline(): Promise<RealtimeFigures> {
  const service = await startService(['--import', 'tsx', 'bench/bare-ws-relay.ts'], {})
  try {
    const wsURL = service.url.replace('http', 'ws')
    const peers = Array.from({ length: IDLE_SOCKETS }, (_, i) => ({
      userID: String(i),
      url: `${wsURL}/?id=${i}`,
      headers: {},
    }))
    return await measure('bare ws relay (baseline)', service, peers, (to, _localID, body) =>
      JSON.stringify({ to: to.userID, body }),
    )
  } finally {
    await service.stop()
  }
}

export async function benchRealtime(): Promise<RealtimeFigures> {
  const storage = await freshStorage()
  const service = await startService(['dist/main.js'], storage.env)
  try {
    const { organizationID } = cli(['org', 'create', '--name', 'Bench'], storage.env)
    const { serverKey } = cli(['server-key', 'create', '--org', organizationID as string], storage.env)
    const post = poster(service.url)
    const wsURL = `${service.url.replace('http', 'ws')}/connect`
    const indexes = Array.from({ length: IDLE_SOCKETS }, (_, i) => i)
    const peers = await pool(indexes, 50, async (i): Promise<Peer> => {
      const { userID, auth } = await signIn(post, serverKey as string, `bench-${i}`)
      return { userID, url: wsURL, headers: auth }
    })
    return await measure('Parley /connect (SQLite)', service, peers, (to, localID, body) =>
      JSON.stringify({
        eventName: 'chat/sendMessage',
        data: { recipientUserID: to.userID, localID, type: 1001, body },
      }),
    )
  } finally {
    await service.stop()
    await storage.drop()
  }
}

export function printRealtime(rows: RealtimeFigures[]): void {
  console.log(`\nreal time: ${IDLE_SOCKETS} sockets, ${PAIRS} pairs at ${RATE} msg/s for ${DURATION} s`)
  const header = [
    'scenario',
    'KB/socket',
    'sent/s',
    'recv/s',
    'p50 ms',
    'p99 ms',
    'server CPU',
    'generator CPU',
  ]
  const lines = rows.map((r) => [
    r.name,
    (r.bytesPerSocket / 1024).toFixed(1),
    r.sentPerSecond.toFixed(0),
    r.receivedPerSecond.toFixed(0),
    r.p50.toFixed(1),
    r.p99.toFixed(1),
    `${(r.serverCPU * 100).toFixed(0)}%`,
    `${(r.generatorCPU * 100).toFixed(0)}%`,
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)))
  for (const line of [header, ...lines])
    console.log(line.map((c, i) => c.padEnd(widths[i] as number)).join('  '))
}
