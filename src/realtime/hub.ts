import type { Frame } from '../contract/frames.js'
import type { Audience } from '../domain/happenings/catalogue.js'

export type { Frame } from '../contract/frames.js'
export type { Audience } from '../domain/happenings/catalogue.js'

/** Hears every frame published, with whom it is for. */
export type Subscriber = (audience: Audience, frame: Frame) => void

/**
 * Hears that frames for this instance may have been lost: for `audience`'s sockets, or (without
 * one) for every socket here.
 */
export type LossListener = (audience?: Audience) => void

/** Where a hub reports a subscriber that threw (the frame still reaches the other subscribers). */
export interface HubLog {
  error(details: object, message: string): void
}

/**
 * Where the frame listeners (frame-listeners.ts) publish the catalogued frames (contract/frames.ts);
 * the /connect gateway subscribes and delivers them to sockets. Frames address users and sessions,
 * never sockets.
 */
export interface Hub {
  /** Delivers to this process's subscribers at once, and to other instances' (if any). */
  publish(audience: Audience, frame: Frame): void
  subscribe(subscriber: Subscriber): () => void
  /**
   * Frames for this user must reach this instance (it is opening a socket of theirs): resolves
   * once they will, with what to call when the socket has closed.
   */
  hold(userID: string): Promise<() => void>
  /**
   * Frames for the sockets watching this room must reach this instance (one of its sockets starts
   * watching it): resolves once they will, with what to call when it stops.
   */
  watch(roomID: string): Promise<() => void>
  /**
   * Calls `listener` when events meant for this instance may have been lost (it lost Redis, or
   * another instance's events arrived with a gap): those sockets can no longer be told everything.
   */
  onLoss(listener: LossListener): () => void
  /** Throws when the hub cannot reach other instances (for /readyz, and before a socket opens). */
  ready(): Promise<void>
  close(): Promise<void>
}

/**
 * The in-process hub: every subscriber of this process hears every frame, in order. Publishing
 * happens after a commit, so a subscriber that throws is logged and skipped: the change is made and
 * its caller must not hear otherwise.
 */
export class LocalHub implements Hub {
  private readonly subscribers = new Set<Subscriber>()

  constructor(private readonly log: HubLog = console) {}

  publish(audience: Audience, frame: Frame): void {
    for (const subscriber of this.subscribers) {
      try {
        subscriber(audience, frame)
      } catch (error) {
        this.log.error({ err: error, eventName: frame.eventName }, 'hub: a listener failed')
      }
    }
  }

  subscribe(subscriber: Subscriber): () => void {
    this.subscribers.add(subscriber)
    return () => this.subscribers.delete(subscriber)
  }

  /** Every frame of this process reaches its subscribers already. */
  async hold(): Promise<() => void> {
    return () => {}
  }

  async watch(): Promise<() => void> {
    return () => {}
  }

  /** Nothing between this process's publishers and its sockets can lose an event. */
  onLoss(): () => void {
    return () => {}
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {
    this.subscribers.clear()
  }
}
