import { openDatabase } from '../src/storage/database.js'
import { seedRooms } from '../test/support/rooms.js'
import {
  cli,
  DURATION,
  freshStorage,
  newOrganization,
  poster,
  type Service,
  signIn,
  startService,
} from './lib.js'
import { describeProbe, type ProbeFigures, startProbe } from './probe.js'

// The hostile run of issue 40 for upload floods and huge lists (docs/reference/quotas.md): while
// each attack runs, a probe in a process of its own asks /healthz every 20 ms; its latencies next
// to the same probe on the idle server. The service holds when /healthz answers within 100 ms
// throughout. BENCH_ONLY=abuse.

export interface AbuseFigures extends ProbeFigures {
  name: string
  /** What the attack's requests were answered, by status. */
  answers: Record<string, number>
}

const UPLOADERS = 20
const LIST_CLIENTS = 10
const ROOMS = 6000
const UNREAD_ROOMS = 200
const UNREAD = 30

export async function benchAbuse(label: string, postgresURL?: string): Promise<AbuseFigures[]> {
  const storage = await freshStorage(postgresURL)
  const service = await startService(['dist/main.js'], storage.env)
  try {
    const { organizationID, serverKey } = newOrganization(service.env)
    const { appKey } = cli(['app-key', 'create', '--org', organizationID], service.env)
    const post = poster(service.url)
    const uploaders = await Promise.all(
      Array.from({ length: UPLOADERS }, (_, i) => signIn(post, serverKey, `uploader-${i}`)),
    )
    const [lister, peer] = [await signIn(post, serverKey, 'lister'), await signIn(post, serverKey, 'peer')]
    await seedLists(storage.env, organizationID, lister.userID, peer.userID)
    const rows = [await probed(`idle (${label})`, service, async () => ({}))]
    const pdf = new Blob([Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(1024, 7)])])
    rows.push(
      await probed(`${UPLOADERS} uploaders flooding 1 KiB files (${label})`, service, () =>
        flood(uploaders, async (uploader) => {
          const form = new FormData()
          form.append('file', pdf, 'flood.pdf')
          return fetch(`${service.url}/v1/chat/file/upload`, {
            method: 'POST',
            body: form,
            headers: uploader.auth,
          })
        }),
      ),
    )
    const roomList = (headers: Record<string, string>, body: string) => () =>
      fetch(`${service.url}/v1/chat/message/room_list_and_unread`, { method: 'POST', headers, body })
    rows.push(
      await probed(
        `room lists of ${ROOMS} rooms, ${UNREAD_ROOMS} with ${UNREAD} unread (${label})`,
        service,
        () =>
          flood(
            [
              ...Array(LIST_CLIENTS).fill(
                roomList({ ...lister.auth, 'content-type': 'application/json' }, '{}'),
              ),
              ...Array(LIST_CLIENTS).fill(roomList({ ...lister.auth, 'app-key': appKey as string }, '""')),
            ],
            (call) => call(),
          ),
      ),
    )
    return rows
  } finally {
    await service.stop()
    await storage.drop()
  }
}

/** Each of `clients` sends requests one after another for DURATION seconds: the answers by status. */
async function flood<T>(clients: T[], request: (client: T) => Promise<Response>) {
  const deadline = Date.now() + DURATION * 1000
  const answers: Record<string, number> = {}
  await Promise.all(
    clients.map(async (client) => {
      while (Date.now() < deadline) {
        const response = await request(client).catch(() => undefined)
        await response?.arrayBuffer()
        const status = String(response?.status ?? 'failed')
        answers[status] = (answers[status] ?? 0) + 1
      }
    }),
  )
  return answers
}

/** `attack` with the /healthz probe running beside it (for DURATION seconds when idle). */
async function probed(
  name: string,
  service: Service,
  attack: () => Promise<Record<string, number>>,
): Promise<AbuseFigures> {
  const probe = await startProbe(service.url)
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const answers = await attack()
    if (Object.keys(answers).length === 0)
      await new Promise((resolve) => setTimeout(resolve, DURATION * 1000))
    return { name, answers, ...(await probe.stop()) }
  } finally {
    probe.kill()
  }
}

/** The lister in ROOMS group rooms with the peer: UNREAD_ROOMS with UNREAD unread messages, the rest with one. */
async function seedLists(
  env: Record<string, string>,
  organizationID: string,
  userID: string,
  peerID: string,
) {
  const database = openDatabase({ dataDir: env.DATA_DIR as string, databaseURL: env.DATABASE_URL })
  let id = 0
  try {
    await seedRooms(database.db, {
      organizationID,
      userID,
      peerID,
      rooms: ROOMS,
      messagesOf: (room) => (room >= ROOMS - UNREAD_ROOMS ? UNREAD : 1),
      start: Date.now() - 1_000_000_000,
      // Small numbers, which no ID Parley issues is (they have 15 digits and more).
      nextID: () => String(++id),
    })
  } finally {
    await database.close()
  }
}

export function printAbuse(rows: AbuseFigures[]): void {
  console.log(`\nHostile run: /healthz every 20 ms from a process of its own, ${DURATION} s per attack`)
  for (const row of rows)
    console.log(`${row.name.padEnd(64)}  ${describeProbe(row)}  answers ${JSON.stringify(row.answers)}`)
}
