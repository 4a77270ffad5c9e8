/** One real-time event, as sent to clients: `{"eventName": "...", "data": {...}}` (DESIGN §6). */
export interface RealtimeEvent {
  eventName: string
  data: unknown
}

/** Who an event is for: every device of these users, and/or these sessions. */
export interface Audience {
  userIDs?: readonly string[]
  sessionIDs?: readonly string[]
  /** A session that already has the news (it sent the message): its sockets are skipped. */
  exceptSessionID?: string
}

export type Listener = (audience: Audience, event: RealtimeEvent) => void

/**
 * Where domain code announces what happened; the /connect gateway subscribes and delivers to
 * sockets. Events address users and sessions, never sockets.
 */
export interface Hub {
  /** Delivers to this process's subscribers at once, and to other instances' (if any). */
  publish(audience: Audience, event: RealtimeEvent): void
  subscribe(listener: Listener): () => void
  /** Throws when the hub cannot reach other instances (for /readyz). */
  ready(): Promise<void>
  close(): Promise<void>
}

/** The in-process hub: every subscriber of this process hears every event, in order. */
export class LocalHub implements Hub {
  private readonly listeners = new Set<Listener>()

  publish(audience: Audience, event: RealtimeEvent): void {
    for (const listener of this.listeners) listener(audience, event)
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {
    this.listeners.clear()
  }
}
