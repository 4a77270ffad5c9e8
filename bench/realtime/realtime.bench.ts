import { freshStorage, newOrganization, poster, signIn, startService } from '../lib.js'
import { type Link, openSocketIO, openWebSocket } from './links.js'
import { measure, PAIRS, RATES, type RealtimeFigures } from './load.js'

// Real time (issues 4 and 21): one instance holds SOCKETS authenticated sockets (the 2·PAIRS
// users who write, the rest idle), then the pairs write at each of RATES, next to a bare `ws`
// relay and a Socket.IO relay doing the same without storing anything.
const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 10_000)

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

const userIDs = Array.from({ length: SOCKETS }, (_, i) => String(i))

export async function benchRelay(kind: 'ws' | 'Socket.IO'): Promise<RealtimeFigures> {
  const script = kind === 'ws' ? 'bench/realtime/bare-ws-relay.ts' : 'bench/realtime/socketio-relay.ts'
  const service = await startService(['--import', 'tsx', script], {})
  try {
    const wsURL = service.url.replace('http', 'ws')
    const open = (id: string): Promise<Link> =>
      kind === 'ws'
        ? openWebSocket(`${wsURL}/?id=${id}`, {}, (to, _localID, body) => JSON.stringify({ to, body }))
        : openSocketIO(service.url, id)
    const name = kind === 'ws' ? 'bare ws relay (baseline)' : 'Socket.IO relay (peer baseline)'
    return await measure(name, service.child.pid as number, () => pool(userIDs, 200, open), userIDs)
  } finally {
    await service.stop()
  }
}

export async function benchRealtime(database: 'SQLite' | 'PostgreSQL', postgresURL?: string) {
  const storage = await freshStorage(postgresURL)
  const service = await startService(['dist/main.js'], storage.env)
  try {
    const { serverKey } = newOrganization(storage.env)
    const post = poster(service.url)
    const wsURL = `${service.url.replace('http', 'ws')}/connect`
    const users = await pool(userIDs, 50, (i) => signIn(post, serverKey, `bench-${i}`))
    const frame = (to: string, localID: string, body: string) =>
      JSON.stringify({
        eventName: 'chat/sendMessage',
        data: { recipientUserID: to, localID, type: 1001, body },
      })
    const open = () => pool(users, 200, (user) => openWebSocket(wsURL, user.auth, frame))
    return await measure(
      `Parley /connect (${database})`,
      service.child.pid as number,
      open,
      users.map((user) => user.userID),
    )
  } finally {
    await service.stop()
    await storage.drop()
  }
}

export function printRealtime(rows: RealtimeFigures[]): void {
  console.log(`\nreal time: ${SOCKETS} sockets, ${PAIRS} pairs writing, each rate for the same seconds`)
  const header = ['scenario', 'KB/socket', 'offered/s', 'sent/s', 'recv/s', 'p50 ms', 'p99 ms']
  header.push('server CPU', 'PostgreSQL CPU', 'generator CPU')
  const cpu = (share: number) => `${(share * 100).toFixed(0)}%`
  const lines = rows.flatMap((r) =>
    r.rates.map((rate) => [
      r.name,
      (r.bytesPerSocket / 1024).toFixed(1),
      String(rate.rate),
      rate.sentPerSecond.toFixed(0),
      rate.receivedPerSecond.toFixed(0),
      rate.p50.toFixed(1),
      rate.p99.toFixed(1),
      cpu(rate.serverCPU),
      cpu(rate.databaseCPU),
      cpu(rate.generatorCPU),
    ]),
  )
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] as string).length)))
  for (const line of [header, ...lines])
    console.log(line.map((c, i) => c.padEnd(widths[i] as number)).join('  '))
  console.log(`(rates offered in turn: ${RATES.join(', ')} msg/s)`)
}
