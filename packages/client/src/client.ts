import { type ApiContext, casesAPI, messagesAPI, roomsAPI, usersAPI } from './api.js'
import { BACKOFF_DEFAULTS, type BackoffOptions } from './backoff.js'
import { Emitter } from './emitter.js'
import { isUnauthorized, ParleyError } from './errors.js'
import { emitFrame, frameHandlers, type ParleyEvents } from './events.js'
import { reportsAPI, roomContentAPI, scheduledAPI } from './features.js'
import { type FilesAPI, filesAPI } from './files.js'
import { groupsAPI, profilesAPI } from './groups.js'
import { Outbox, type SendPath } from './outbox.js'
import type { Answer, ClientPath, Request, Upload } from './paths.js'
import { blocksAPI, contactsAPI, roomStatesAPI } from './people.js'
import { Realtime, type WebSocketConstructor } from './realtime.js'
import { Session } from './session.js'
import { defaultStorage, memoryStorage, type StorageLike, Store } from './storage.js'
import { MessageSync } from './sync.js'
import { Transport } from './transport.js'
import type { ConnectionState, User } from './types.js'

// ParleyClient wires the parts together: the session (tokens), the socket (reconnects), the
// message sync (resync, exactly once, in order) and the outbox (sends that survive failures and
// reloads), and turns the socket's frames into typed events.

export interface ParleyClientOptions {
  /** Where Parley answers, e.g. `https://chat.example.com`. */
  baseURL: string
  /** A fresh auth ticket from the customer's backend (which holds the Server-Key). */
  getTicket: () => Promise<string>
  /** The WebSocket class, where the platform has none (Node 20: the `ws` package's). */
  WebSocket?: WebSocketConstructor
  /** Where the session and the outbox are kept: localStorage if present, else memory; null: memory. */
  storage?: StorageLike | null
  /** The namespace of the stored keys (default `parley`): one per signed-in user of a device. */
  storageKey?: string
  /** Backoff of reconnects and outbox retries (full jitter; defaults 500 ms and 30 s). */
  reconnect?: BackoffOptions
  fetch?: typeof fetch
  /** An HTTP request with no answer (or a socket not open) after this long is given up (default 30 s). */
  requestTimeoutMs?: number
}

const REQUEST_TIMEOUT_MS = 30_000

export class ParleyClient {
  readonly users: ReturnType<typeof usersAPI> & ReturnType<typeof profilesAPI>
  readonly rooms: ReturnType<typeof roomsAPI> & ReturnType<typeof groupsAPI>
  readonly messages: ReturnType<typeof messagesAPI>
  readonly cases: ReturnType<typeof casesAPI>
  /** Messages to send later. */
  readonly scheduled: ReturnType<typeof scheduledAPI>
  /** Read details of a message, a room's shared content. */
  readonly roomContent: ReturnType<typeof roomContentAPI>
  /** Reports of a message or a user, for the organization's admins. */
  readonly reports: ReturnType<typeof reportsAPI>
  readonly contacts: ReturnType<typeof contactsAPI>
  readonly blocks: ReturnType<typeof blocksAPI>
  readonly roomStates: ReturnType<typeof roomStatesAPI>
  /** Uploads (with progress); `messages.sendFile` and `cases.sendFile` upload and send in one go. */
  readonly files: FilesAPI
  private readonly events = new Emitter<ParleyEvents>()
  private readonly transport: Transport
  private readonly session: Session
  private readonly sync: MessageSync
  private readonly outbox: Outbox
  private readonly realtime: Realtime

  constructor(options: ParleyClientOptions) {
    const WebSocket = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket
    if (!WebSocket) throw new TypeError('This platform has no WebSocket: pass the WebSocket option')
    const backoff = { ...BACKOFF_DEFAULTS, ...options.reconnect }
    const store = new Store(
      options.storage === null ? memoryStorage() : (options.storage ?? defaultStorage()),
      options.storageKey ?? 'parley',
    )
    this.transport = new Transport({
      baseURL: options.baseURL,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      timeoutMs: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    })
    this.session = new Session({
      transport: this.transport,
      store,
      getTicket: options.getTicket,
      onEnded: () => this.ended(),
    })
    this.sync = this.messageSync()
    this.outbox = this.createOutbox(store, backoff)
    this.realtime = this.createRealtime(WebSocket, backoff, options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS)
    const upload: Upload = (path, form, onProgress) =>
      this.session.authorized((token) => this.transport.upload(path, form, token, onProgress))
    this.files = filesAPI(upload)
    const context: ApiContext = {
      call: (path, body) => this.call(path, body),
      files: this.files,
      outbox: this.outbox,
      userID: () => this.user?.userID,
      watch: (id: string) => this.watch(id),
    }
    this.users = { ...usersAPI(context), ...profilesAPI(context, upload) }
    this.rooms = { ...roomsAPI(context), ...groupsAPI(context, upload) }
    this.messages = messagesAPI(context)
    this.cases = casesAPI(context)
    this.scheduled = scheduledAPI(context)
    this.roomContent = roomContentAPI(context)
    this.reports = reportsAPI(context)
    this.contacts = contactsAPI(context)
    this.blocks = blocksAPI(context)
    this.roomStates = roomStatesAPI(context)
  }

  /** The signed-in user (undefined before start, and after the session ended). */
  get user(): User | undefined {
    return this.session.user
  }

  get connectionState(): ConnectionState {
    return this.realtime.state
  }

  /** Adds a listener; returns the function that removes it. */
  on<E extends keyof ParleyEvents>(event: E, listener: (...args: ParleyEvents[E]) => void): () => void {
    return this.events.on(event, listener)
  }

  /**
   * Resumes the stored session (or trades a ticket for one), resumes the stored outbox and opens
   * the socket. Resolves once signed in, without waiting for the socket (offline works).
   */
  async start(): Promise<void> {
    await this.session.begin()
    this.outbox.load()
    this.outbox.start()
    this.realtime.start()
  }

  /** Closes the socket and pauses the outbox; the session and the outbox stay stored. */
  stop(): void {
    this.realtime.stop()
    this.outbox.stop()
  }

  /** Ends the session on the server and forgets it here, with the outbox (it was this user's). */
  async logout(): Promise<void> {
    const token = this.session.accessToken
    this.stop()
    try {
      if (token) await this.transport.post('/v1/client/logout', {}, token)
    } catch (error) {
      // Refused: the session was over already.
      if (!isUnauthorized(error)) throw error
    } finally {
      this.outbox.clear(new ParleyError(401, 'logged_out', 'logged out before the message was sent'))
      this.session.forget()
    }
  }

  /**
   * Follows a room: its messages created after `after` are emitted (default 0: the whole history;
   * give the newest `created` of a page read with listBefore to go on from there), and it is read
   * again after every reconnect.
   */
  watch(roomID: string, options: { after?: number } = {}): void {
    // A read that fails for now starts the socket over, and with it every room's resync.
    this.sync.watch(roomID, options.after).catch(() => this.realtime.reconnect())
  }

  unwatch(roomID: string): void {
    this.sync.unwatch(roomID)
  }

  /** Tells the room's other participants (dropped while no socket is open). */
  typing(roomID: string, typing: boolean): void {
    this.realtime.send(typing ? 'chat/startTyping' : 'chat/stopTyping', { roomID })
  }

  private call<P extends ClientPath>(path: P, body: Request<P>): Promise<Answer<P>> {
    return this.session.authorized((token) => this.transport.post(path, body, token))
  }

  private messageSync(): MessageSync {
    return new MessageSync({
      listAfter: (roomID, minCreated, limit) =>
        this.call('/v1/chat/message/list_by_room/after', { roomID, minCreated, limit }),
      deliver: (message) => this.events.emit('message', message),
      activity: (message) => this.events.emit('roomActivity', message),
      lost: (roomID, error) => this.events.emit('unwatched', { roomID, error: error as ParleyError }),
    })
  }

  private createOutbox(store: Store, backoff: Required<BackoffOptions>): Outbox {
    return new Outbox({
      store,
      backoff,
      send: async (entry) => {
        // Its path and body were checked as it was written (api.ts), before the store held it.
        const { path, body } = entry.request as { path: SendPath; body: Request<SendPath> }
        return (await this.call(path, { ...body, localID: entry.localID })).message
      },
      stored: (_entry, message) => this.sync.receive(message),
      refused: (entry, error) => this.events.emit('sendFailed', { entry, error }),
    })
  }

  private createRealtime(
    WebSocket: WebSocketConstructor,
    backoff: Required<BackoffOptions>,
    connectTimeoutMs: number,
  ): Realtime {
    const frames = frameHandlers(this.events, this.sync)
    return new Realtime({
      transport: this.transport,
      session: this.session,
      WebSocket,
      backoff,
      connectTimeoutMs,
      onFrame: (eventName, data) => emitFrame(frames, eventName, data),
      onOpen: () => {
        // The server answers again: the outbox need not wait out its backoff.
        this.outbox.wake()
        return this.sync.connected()
      },
      onClose: () => this.sync.disconnected(),
      onState: (state) => this.events.emit('connection', state),
    })
  }

  private ended(): void {
    this.stop()
    this.events.emit('sessionEnded')
  }
}
