import { execFileSync } from 'node:child_process'
import { connect, type Socket } from 'node:net'
import { setPriority } from 'node:os'
import WebSocket from 'ws'
import { freshStorage, newOrganization, poster, signIn, startService } from './lib.js'
import { describeProbe, type Probe, startProbe } from './probe.js'

// `npm run hostile [-- --postgres]`: the attacks of docs/reference/limits.md against a built server
// whose file descriptors are limited to 256 (as in the report that found them), one after another,
// while /healthz is asked every 20 ms from an address of its own. Prints, per attack, how the
// service answered the attacker and how long /healthz took (a probe that fails counts as failed).
// The attackers use 127.0.0.2 and 127.0.0.3, over loopback; the probe (probe.ts) runs in a process
// of its own. Real attackers are on other machines: here they run at the lowest CPU priority, so
// that what /healthz waits for is the server, not the attackers' own share of this machine's cores.

const FD_LIMIT = 256
const PHASE_MS = Number(process.env.HOSTILE_PHASE_SECONDS ?? 10) * 1000
const postgresURL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** `count` logins from `localAddress` whose 8,000-byte bodies (the most a login takes) come a byte every 2 s. */
function slowBodies(url: URL, localAddress: string, count: number) {
  const sockets: Socket[] = []
  const outcome = { refused: 0, answered: 0 }
  for (let i = 0; i < count; i++) {
    const socket = connect({ host: url.hostname, port: Number(url.port), localAddress })
    socket.on('error', () => {})
    socket.on('data', () => outcome.answered++)
    socket.on('close', () => outcome.refused++)
    socket.on('connect', () =>
      socket.write(
        'POST /api/agent/v1/auth/login HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\n' +
          'Content-Length: 8000\r\n\r\n{',
      ),
    )
    sockets.push(socket)
  }
  const trickle = setInterval(() => {
    for (const socket of sockets) if (!socket.destroyed) socket.write(' ')
  }, 2000)
  return () => {
    clearInterval(trickle)
    const open = sockets.filter((socket) => !socket.destroyed).length
    for (const socket of sockets) socket.destroy()
    return `${count} slow logins from ${localAddress}: ${open} still open, ${outcome.refused} closed by the server`
  }
}

/** `count` sockets on /connect with one visitor's token: how many the server kept, and the close codes. */
function socketFlood(url: URL, token: string, count: number) {
  const codes = new Map<number, number>()
  const sockets = Array.from({ length: count }, () => {
    const socket = new WebSocket(`ws://${url.host}/connect`, {
      headers: { authorization: `Bearer ${token}` },
      localAddress: '127.0.0.3',
    })
    socket.on('error', () => {})
    socket.on('close', (code) => codes.set(code, (codes.get(code) ?? 0) + 1))
    socket.on('unexpected-response', (_request, response) => {
      codes.set(response.statusCode ?? 0, (codes.get(response.statusCode ?? 0) ?? 0) + 1)
      socket.terminate()
    })
    return socket
  })
  return () => {
    const open = sockets.filter((socket) => socket.readyState === WebSocket.OPEN).length
    for (const socket of sockets) socket.terminate()
    return `${count} sockets with one token: ${open} open; refusals ${JSON.stringify(Object.fromEntries(codes))}`
  }
}

/** Sends 20,000-level `data` through the chat API, one request after another, until stopped. */
function deepJSON(baseURL: string, token: string, recipientUserID: string) {
  const deep = `${'{"a":'.repeat(19_999)}{}${'}'.repeat(19_999)}`
  const statuses = new Map<number, number>()
  let running = true
  const worker = async (n: number) => {
    for (let i = 0; running; i++) {
      const body = `{"recipientUserID":"${recipientUserID}","localID":"deep-${n}-${i}","type":1001,"body":"x","data":${deep}}`
      const response = await fetch(`${baseURL}/v1/chat/message/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      }).catch(() => undefined)
      await response?.arrayBuffer()
      const status = response?.status ?? 0
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
    }
  }
  const workers = [worker(0)]
  return async () => {
    running = false
    await Promise.all(workers)
    return `20,000-level data: answers ${JSON.stringify(Object.fromEntries(statuses))}`
  }
}

// HOSTILE_ONLY="socket flood" runs that attack alone (after the baseline), e.g. to profile it.
const only = process.env.HOSTILE_ONLY
const BASELINE = 'no attack (baseline)'

async function phase(probe: Probe, name: string, attack: () => () => Promise<string> | string) {
  if (only && name !== only && name !== BASELINE) return
  await probe.figures()
  const stopAttack = attack()
  await sleep(PHASE_MS)
  const outcome = await stopAttack()
  console.log(`${name}\n  ${outcome}\n  ${describeProbe(await probe.figures())}`)
}

async function main(): Promise<void> {
  const storage = await freshStorage(process.argv.includes('--postgres') ? postgresURL : undefined)
  const service = await startService(['dist/main.js'], { ...storage.env, LOG_LEVEL: 'error' })
  // Even if this process ends abruptly, the server does not outlive it.
  process.on('exit', () => service.child.kill())
  let probe: Probe | undefined
  try {
    execFileSync('prlimit', ['--pid', String(service.child.pid), `--nofile=${FD_LIMIT}:${FD_LIMIT}`])
    const url = new URL(service.url)
    const { serverKey } = newOrganization(service.env)
    const post = poster(service.url)
    const visitor = await signIn(post, serverKey, 'visitor')
    const other = await signIn(post, serverKey, 'other')
    const token = visitor.auth.authorization.replace('Bearer ', '')
    probe = await startProbe(service.url)
    // This thread only: the server and the probe started before, at the usual priority.
    setPriority(19)
    console.log(`file descriptors limited to ${FD_LIMIT}; each attack runs ${PHASE_MS / 1000} s`)
    await phase(probe, BASELINE, () => () => 'nothing')
    await phase(probe, 'slow bodies', () => slowBodies(url, '127.0.0.2', 260))
    await phase(probe, 'socket flood', () => socketFlood(url, token, 400))
    await phase(probe, 'deep JSON', () => deepJSON(service.url, token, other.userID))
    await probe.stop()
  } finally {
    probe?.kill()
    await service.stop()
    await storage.drop()
  }
}

await main()
