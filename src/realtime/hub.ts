/** One real-time event, as sent to clients: `{"eventName": "...", "data": {...}}` (docs/reference/real-time.md). */
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

/** Where a hub reports a listener that threw (the event still reaches the other listeners). */
export interface HubLog {
  error(details: object, message: string): void
}

/**
 * Where domain code announces what happened; the /connect gateway subscribes and delivers to
 * sockets. Events address users and sessions, never sockets.
 */
export interface Hub {
  /** Delivers to this process's subscribers at once, and to other instances' (if any). */
  publish(audience: Audience, event: RealtimeEvent): void
  subscribe(listener: Listener): () => void
  /**
   * Calls `listener` when events meant for this instance may have been lost (it lost Redis, or
   * another instance's events arrived with a gap): open sockets can no longer be told everything.
   */
  onLoss(listener: () => void): () => void
  /** Throws when the hub cannot reach other instances (for /readyz, and before a socket opens). */
  ready(): Promise<void>
  close(): Promise<void>
}

/**
 * The in-process hub: every subscriber of this process hears every event, in order. Publishing
 * happens after a commit, so a listener that throws is logged and skipped: the change is made and
 * its caller must not hear otherwise.
 */
export class LocalHub implements Hub {
  private readonly listeners = new Set<Listener>()

  constructor(private readonly log: HubLog = console) {}

  publish(audience: Audience, event: RealtimeEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(audience, event)
      } catch (error) {
        this.log.error({ err: error, eventName: event.eventName }, 'hub: a listener failed')
      }
    }
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Nothing between this process's publishers and its sockets can lose an event. */
  onLoss(): () => void {
    return () => {}
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {
    this.listeners.clear()
  }
}
