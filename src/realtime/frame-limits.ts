import type { Clock } from '../lib/clock.js'
import { TYPING_REPEAT_MS, TypingNotices } from '../lib/typing-notices.js'

// What one socket may send (docs/reference/real-time.md): a flood of frames must neither hold the event
// loop nor reach other users. Frames over the rate are answered with 42900 without being handled;
// a socket that goes on sending into a refusal is closed with FLOOD_CLOSE_CODE.

export interface FrameLimitOptions {
  /** Frames a socket may send at once after a quiet spell. */
  frameBurst: number
  /** Frames per second a socket may keep sending. */
  framesPerSecond: number
  /** Refused frames in a row, with no frame accepted between them, before the socket is closed. */
  refusedBeforeClose: number
  /** A repeated typing notice for the same room within this many ms is answered but not relayed. */
  typingRepeatMs: number
}

export const FRAME_LIMIT_DEFAULTS: FrameLimitOptions = {
  frameBurst: 60,
  framesPerSecond: 20,
  refusedBeforeClose: 100,
  typingRepeatMs: TYPING_REPEAT_MS,
}

/** 4008: Parley's counterpart of 1008 (policy violation), for a socket that kept flooding. */
export const FLOOD_CLOSE_CODE = 4008

/** What to do with one incoming frame. */
export type FrameVerdict = 'handle' | 'refuse' | 'close'

/** Rooms remembered per socket for typing coalescing; beyond this, the oldest are forgotten. */
const MAX_TYPING_ROOMS = 64

/** The limits of one socket: a token bucket for frames, and the last typing notice per room. */
export class SocketLimits {
  private tokens: number
  private refilledAt: number
  private refusedInARow = 0
  private readonly typing: TypingNotices

  constructor(
    private readonly clock: Clock,
    private readonly options: FrameLimitOptions,
  ) {
    this.tokens = options.frameBurst
    this.refilledAt = clock.now()
    this.typing = new TypingNotices(clock, options.typingRepeatMs, MAX_TYPING_ROOMS)
  }

  /** Takes one frame's token; answers what the gateway should do with the frame. */
  admit(): FrameVerdict {
    const now = this.clock.now()
    const earned = ((now - this.refilledAt) / 1000) * this.options.framesPerSecond
    this.tokens = Math.min(this.options.frameBurst, this.tokens + earned)
    this.refilledAt = now
    if (this.tokens >= 1) {
      this.tokens--
      this.refusedInARow = 0
      return 'handle'
    }
    this.refusedInARow++
    return this.refusedInARow >= this.options.refusedBeforeClose ? 'close' : 'refuse'
  }

  /** Whether a typing notice for the room is news (TypingNotices.isNews). */
  isTypingNews(roomID: string, eventName: string): boolean {
    return this.typing.isNews(roomID, eventName)
  }

  /** Records a relayed typing notice. */
  typingRelayed(roomID: string, eventName: string): void {
    this.typing.relayed(roomID, eventName)
  }
}
