import WebSocket from 'ws'
import { send } from './app.js'
import { wsURL } from './sockets.js'

// A client that follows the resync procedure (Failure modes), as an application would:
// on any close it reconnects (to whichever instance answers), then reads each room with
// `list_by_room/after` from the last `created` it saw, less the overlap, and drops what it already
// has by messageID. Live messages that arrive while it reads are held and applied after.

/** How far back a resync reads (docs/reference/real-time.md: an announcement can overtake a slightly older one). */
export const RESYNC_OVERLAP_MS = 10_000

interface Message {
  messageID: string
  roomID: string
  created: number
}

export class ResyncClient {
  /** Every message the application saw, each once, in the order it saw them. */
  readonly seen: Message[] = []
  /** Frames that repeated a message already seen (dropped by messageID). */
  repeats = 0
  /** Close codes of the sockets this client lost. */
  readonly closeCodes: number[] = []
  /** Refused upgrades (an instance without its events, or gone) before a socket opened again. */
  refusals = 0
  private readonly ids = new Set<string>()
  private readonly lastCreated = new Map<string, number>()
  private socket: WebSocket | undefined
  private held: Message[] | undefined
  private stopped = false
  private connected: Promise<void> = Promise.resolve()
  /** Counts connection attempts: a procedure overtaken by a newer one stops. */
  private generation = 0

  constructor(
    /** The instances to try, in turn. */
    private readonly urls: string[],
    private readonly accessToken: string,
    rooms: string[],
  ) {
    for (const roomID of rooms) this.lastCreated.set(roomID, 0)
  }

  /** Connects (retrying until an instance accepts) and reads what was missed. */
  start(): Promise<void> {
    this.connected = this.connectAndResync()
    return this.connected
  }

  /** Resolves once the client has seen `count` messages, or rejects after `ms`. */
  async until(count: number, ms = 30_000): Promise<void> {
    const deadline = Date.now() + ms
    while (this.seen.length < count) {
      if (Date.now() > deadline) throw new Error(`saw ${this.seen.length} of ${count} messages`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    await this.connected.catch(() => {})
    this.socket?.close()
  }

  private async connectAndResync(): Promise<void> {
    const generation = ++this.generation
    for (let attempt = 0; !this.stopped && generation === this.generation; attempt++) {
      const url = this.urls[attempt % this.urls.length] as string
      const socket = await this.open(url).catch(() => undefined)
      if (!socket) {
        this.refusals++
        await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** attempt, 500)))
        continue
      }
      this.socket = socket
      this.held = []
      const complete = await this.resync(url)
      if (generation !== this.generation) return
      if (!complete) {
        // The read failed (the instance or its database is away): start over, as on any close.
        socket.close()
        return
      }
      const held = this.held
      this.held = undefined
      for (const message of held) this.apply(message)
      return
    }
  }

  private open(url: string): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(wsURL(url), { headers: { authorization: `Bearer ${this.accessToken}` } })
      socket.once('open', () => resolve(socket))
      socket.once('error', reject)
      socket.on('error', () => {}) // a close follows, and is handled there
      socket.on('message', (raw) => {
        const frame = JSON.parse(raw.toString()) as { eventName: string; data: Message }
        if (frame.eventName !== 'chat/sendMessage') return
        if (this.held) this.held.push(frame.data)
        else this.apply(frame.data)
      })
      socket.once('close', (code) => {
        if (this.socket !== socket) return
        this.closeCodes.push(code)
        if (!this.stopped) this.connected = this.connectAndResync()
      })
    })
  }

  /** Reads every room from its cursor; false when a read failed. */
  private async resync(url: string): Promise<boolean> {
    for (const roomID of this.lastCreated.keys()) {
      let after = Math.max(0, (this.lastCreated.get(roomID) ?? 0) - RESYNC_OVERLAP_MS)
      for (;;) {
        const reply = await send(`${url}/v1/chat/message/list_by_room/after`, {
          method: 'POST',
          headers: { authorization: `Bearer ${this.accessToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ roomID, minCreated: after, limit: 100 }),
        }).catch(() => undefined)
        if (reply?.status !== 200) return false
        const { messages, hasMore } = reply.json.data as { messages: Message[]; hasMore: boolean }
        for (const message of messages) this.apply(message)
        if (!hasMore || messages.length === 0) break
        after = (messages.at(-1) as Message).created
      }
    }
    return true
  }

  private apply(message: Message): void {
    if (this.ids.has(message.messageID)) {
      this.repeats++
      return
    }
    this.ids.add(message.messageID)
    this.seen.push(message)
    const last = this.lastCreated.get(message.roomID) ?? 0
    this.lastCreated.set(message.roomID, Math.max(last, message.created))
  }
}
