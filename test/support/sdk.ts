import type { Server } from 'node:http'
import type { Duplex } from 'node:stream'
import WebSocket from 'ws'
import {
  type Case,
  type ConnectionState,
  type Message,
  memoryStorage,
  ParleyClient,
  type ParleyClientOptions,
  type StorageLike,
} from '../../packages/client/src/index.js'
import { send } from './app.js'
import { validTicketRequest } from './fixtures.js'
import { eventually } from './poll.js'

// The client SDK against a real Parley: its network seen (and, where a test says so, held or cut)
// through the `fetch` option, which is how an application would wrap it too.

/** Polls `check` until it holds (every 10 ms, for up to `ms`): the tests' one polling helper. */
export const until = (check: () => boolean, what: string, ms = 15_000): Promise<void> =>
  eventually(check, what, ms, 10)

/** A `fetch` that records every request and answer, and can hold reconnects or lose answers. */
export class Network {
  readonly requests: { path: string; body: unknown; status?: number; code?: string }[] = []
  private gate: Promise<void> | undefined
  private open: (() => void) | undefined
  /** Paths whose next answer is lost (the request reaches the server; the client sees a failure). */
  private readonly loseAnswer = new Set<string>()

  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(String(input))
    const path = url.pathname + url.search
    const record: (typeof this.requests)[number] = {
      path,
      // JSON, or (an upload) the FormData itself.
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body,
    }
    this.requests.push(record)
    if (path.startsWith('/connect?check=1')) await this.gate
    const response = await fetch(input, init)
    const copy = response.clone()
    record.status = response.status
    record.code = await copy.json().then(
      (envelope) => (envelope as { error?: { code?: string } } | null)?.error?.code,
      () => undefined,
    )
    if (this.loseAnswer.delete(url.pathname)) throw new TypeError('fetch failed: the answer was lost')
    return response
  }

  /** Requests to `path` (without the query) so far. */
  to(path: string) {
    return this.requests.filter((r) => r.path.split('?')[0] === path)
  }

  /** Reconnects wait (at their token check) until `release`. */
  hold(): void {
    this.gate ??= new Promise((resolve) => {
      this.open = resolve
    })
  }

  release(): void {
    this.open?.()
    this.gate = undefined
  }

  /** The next answer from `path` is lost after the server handled the request. */
  lose(path: string): void {
    this.loseAnswer.add(path)
  }
}

/**
 * The server ends of every /connect socket from now on, to cut them off as a network fault or a
 * server in trouble would: `drop()` destroys the connections (the client sees 1006), `close(code)`
 * writes a WebSocket close frame first (the client sees that code).
 */
export function serverSockets(server: Server) {
  const sockets: Duplex[] = []
  server.on('upgrade', (_request, socket: Duplex) => sockets.push(socket))
  const open = () => sockets.filter((socket) => !socket.destroyed)
  return {
    drop: () => {
      for (const socket of open()) socket.destroy()
    },
    close: (code: number) => {
      // A close frame from a server: FIN + opcode 8, unmasked, 2 bytes of payload (the code).
      const frame = Buffer.from([0x88, 0x02, code >> 8, code & 0xff])
      for (const socket of open()) socket.end(frame)
    },
  }
}

/** Asks `url` for a ticket for `xcUserID`, as the customer's backend would. */
export async function mintTicket(url: string, serverKey: string, xcUserID: string): Promise<string> {
  const reply = await send(`${url}/v1/server/auth_ticket/request`, {
    method: 'POST',
    headers: { 'server-key': serverKey, 'content-type': 'application/json' },
    body: JSON.stringify(validTicketRequest({ xcUserID, fullName: `User ${xcUserID}` })),
  })
  if (reply.status !== 200) throw new Error(`ticket: ${reply.text}`)
  return reply.json.data.ticket
}

/** Everything a client emitted, in order. */
export interface Recorded {
  client: ParleyClient
  storage: StorageLike
  network: Network
  messages: Message[]
  updates: Message[]
  cases: Case[]
  states: ConnectionState[]
  sessionEnded: number
  /** Bodies of the messages emitted in `roomID`, in order. */
  bodies(roomID: string): string[]
}

/** A client with fast backoff, the `ws` WebSocket, a memory storage and a Network, recording its events. */
export function sdkClient(
  baseURL: string,
  getTicket: () => Promise<string>,
  options: Partial<ParleyClientOptions> = {},
): Recorded {
  const network = new Network()
  const storage = options.storage ?? memoryStorage()
  const client = new ParleyClient({
    baseURL,
    getTicket,
    WebSocket,
    storage,
    fetch: network.fetch,
    reconnect: { minDelayMs: 20, maxDelayMs: 200 },
    ...options,
  })
  const recorded: Recorded = {
    client,
    storage,
    network,
    messages: [],
    updates: [],
    cases: [],
    states: [],
    sessionEnded: 0,
    bodies: (roomID) => recorded.messages.filter((m) => m.roomID === roomID).map((m) => m.body),
  }
  client.on('message', (m) => recorded.messages.push(m))
  client.on('messageUpdate', (m) => recorded.updates.push(m))
  client.on('case', (c) => recorded.cases.push(c))
  client.on('connection', (s) => recorded.states.push(s))
  client.on('sessionEnded', () => recorded.sessionEnded++)
  return recorded
}

/** Resolves once the client's socket is open (its rooms may still be being read). */
export const untilOpen = (recorded: Recorded) =>
  until(() => recorded.client.connectionState === 'open', 'the socket to open')

/** The IDs are each there once, and `created` increases along the list. */
export function onceInOrder(messages: Message[]): boolean {
  const ids = new Set(messages.map((m) => m.messageID))
  return (
    ids.size === messages.length &&
    messages.every((m, i) => i === 0 || m.created > (messages[i - 1] as Message).created)
  )
}
