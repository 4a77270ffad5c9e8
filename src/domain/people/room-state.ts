import type { Selectable } from 'kysely'
import type { RoomStatesTable } from '../../storage/schema.js'

/** Rooms one user may have pinned (the TapTalk.io SDK's own limit too). */
export const PINNED_ROOMS_PER_USER = 10
/** Rooms one mute, pin or mark call takes. */
export const ROOMS_PER_CHANGE = 100

/** A user's own state of a room (docs/reference/client-api.md): in their room list, on all their devices. */
export interface RoomState {
  roomID: string
  muted: boolean
  /** Epoch ms the mute ends; 0: until unmuted (or not muted). */
  mutedUntil: number
  pinned: boolean
  /** When it was pinned (epoch ms); 0 when not pinned. */
  pinnedAt: number
  /** Marked as unread by the user; reading a message of the room clears it. */
  markedUnread: boolean
}

export const isMuted = (mutedUntil: number | null, now: number) =>
  mutedUntil !== null && (mutedUntil === 0 || mutedUntil > now)

/** The state a row says as of `now` (a room without one: nothing set). */
export function toRoomState(
  roomID: string,
  row: Selectable<RoomStatesTable> | undefined,
  now: number,
): RoomState {
  const muted = isMuted(row?.muted_until ?? null, now)
  return {
    roomID,
    muted,
    mutedUntil: muted ? Number(row?.muted_until) : 0,
    pinned: row?.pinned_at != null,
    pinnedAt: Number(row?.pinned_at ?? 0),
    markedUnread: row?.marked_unread === 1,
  }
}
