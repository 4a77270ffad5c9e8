import { type BackoffOptions, backoffDelay, Sleeper } from './backoff.js'
import { isRetryable, ParleyError } from './errors.js'
import type { Store } from './storage.js'
import type { Message, QuickReply } from './types.js'

// Messages not stored yet. Each gets its localID before anything is sent and is written to the
// store first, so neither a network error nor a reload loses it; entries go out one at a time, in
// the order written, and one that fails for now is retried (same localID) before any later one.
// The server stores a localID once (docs/reference/client-api.md: a send is idempotent on (sender, localID)), so a
// retry of a send whose answer was lost stores nothing new. A refusal (a 4xx other than 401, 408
// and 429) is final: the entry is dropped and its sender hears why.

/** An entry of the outbox, as `messages.pending()` shows it. */
export interface PendingMessage {
  localID: string
  /** When it was written, on this device's clock. */
  created: number
  /** The room, when known (a case's room is known once the case was read here). */
  roomID?: string
  recipientUserID?: string
  caseID?: string
  type: number
  body: string
  data?: Record<string, unknown>
  /** The quick reply a case message answers with. */
  reply?: QuickReply
  /** Where it is sent, and what (without the localID). */
  request: { path: string; body: Record<string, unknown> }
}

/** Where an entry is sent: a message to a room, or to a case. */
export type SendPath = '/v1/chat/message/send' | '/api/visitor/v1/client/case/send_message'

const KEY = 'outbox'

export interface OutboxOptions {
  store: Store
  backoff: Required<BackoffOptions>
  /** Sends one entry; resolves with the stored message. */
  send(entry: PendingMessage): Promise<Message>
  /** An entry was stored (also one resumed after a reload, which nobody awaits). */
  stored(entry: PendingMessage, message: Message): void
  /** An entry was refused for good. */
  refused(entry: PendingMessage, error: ParleyError): void
}

interface Waiter {
  resolve(message: Message): void
  reject(error: unknown): void
}

export class Outbox {
  private entries: PendingMessage[] = []
  private readonly waiters = new Map<string, Waiter>()
  private active = false
  private running = false
  private readonly sleeper = new Sleeper()

  constructor(private readonly options: OutboxOptions) {}

  /** Takes in what a previous page (or another tab) left in the store, in its order. */
  load(): void {
    const known = new Set(this.entries.map((e) => e.localID))
    for (const entry of this.persisted()) if (!known.has(entry.localID)) this.entries.push(entry)
  }

  /** Writes the entry to the store, then queues it; resolves once it is stored on the server. */
  add(entry: PendingMessage): Promise<Message> {
    this.options.store.write(KEY, [...this.persisted(), entry])
    this.entries.push(entry)
    const stored = new Promise<Message>((resolve, reject) =>
      this.waiters.set(entry.localID, { resolve, reject }),
    )
    void this.run()
    return stored
  }

  pending(roomID?: string): PendingMessage[] {
    return this.entries.filter((entry) => roomID === undefined || entry.roomID === roomID)
  }

  start(): void {
    this.active = true
    void this.run()
  }

  /** Stops sending; entries stay (in memory and in the store) for the next start. */
  stop(): void {
    this.active = false
    this.sleeper.cancel()
  }

  /** The server is reachable again: an entry waiting out its backoff goes now. */
  wake(): void {
    this.sleeper.wake()
  }

  /** Forgets every entry (logout): their senders hear `error`. */
  clear(error: ParleyError): void {
    this.stop()
    const entries = this.entries
    this.entries = []
    this.options.store.remove(KEY)
    for (const entry of entries) this.settle(entry)?.reject(error)
  }

  private async run(): Promise<void> {
    if (this.running || !this.active) return
    this.running = true
    // The loop and the flag's reset share one synchronous step: an add() that comes right after
    // the last entry was stored finds the loop either still running or ended, never in between.
    try {
      let attempt = 0
      for (let entry = this.entries[0]; entry && this.active; entry = this.entries[0]) {
        const outcome = await this.attempt(entry)
        if (outcome === 'stop') return
        if (outcome === 'done') attempt = 0
        else await this.sleeper.sleep(delay(attempt++, outcome, this.options.backoff))
      }
    } finally {
      this.running = false
    }
  }

  /** Sends the first entry once: 'done' (stored or refused), 'stop', or the error to retry after. */
  private async attempt(entry: PendingMessage): Promise<'done' | 'stop' | ParleyError> {
    try {
      const message = await this.options.send(entry)
      if (this.entries[0] === entry) this.finish(entry, message)
      return 'done'
    } catch (error) {
      // Cleared or stopped meanwhile: the loop looks again.
      if (!this.active || this.entries[0] !== entry) return 'done'
      if (isFinal(error)) {
        this.refuse(entry, error)
        return 'done'
      }
      // The session ended: keep everything for the next start (a new sign-in).
      if ((error as ParleyError).code === 'session_ended') return 'stop'
      return error as ParleyError
    }
  }

  private finish(entry: PendingMessage, message: Message): void {
    this.forget(entry)
    this.options.stored(entry, message)
    this.settle(entry)?.resolve(message)
  }

  private refuse(entry: PendingMessage, error: unknown): void {
    this.forget(entry)
    const refusal =
      error instanceof ParleyError ? error : new ParleyError(0, 'client', String(error ?? 'failed'))
    this.options.refused(entry, refusal)
    this.settle(entry)?.reject(refusal)
  }

  private forget(entry: PendingMessage): void {
    this.entries = this.entries.filter((e) => e !== entry)
    this.options.store.write(
      KEY,
      this.persisted().filter((e) => e.localID !== entry.localID),
    )
  }

  private settle(entry: PendingMessage): Waiter | undefined {
    const waiter = this.waiters.get(entry.localID)
    this.waiters.delete(entry.localID)
    return waiter
  }

  private persisted(): PendingMessage[] {
    const stored = this.options.store.read<PendingMessage[]>(KEY)
    return Array.isArray(stored) ? stored : []
  }
}

/** Refused for good: a 4xx other than 401 (the session handles those), 408 and 429. */
function isFinal(error: unknown): boolean {
  if (!(error instanceof ParleyError)) return true
  return !isRetryable(error) && error.status !== 401
}

/** The backoff, but never sooner than the server's Retry-After. */
function delay(attempt: number, error: ParleyError, backoff: Required<BackoffOptions>): number {
  const retryAfter = error.retryAfter ? error.retryAfter * 1000 : 0
  return Math.max(backoffDelay(attempt, backoff), retryAfter)
}
