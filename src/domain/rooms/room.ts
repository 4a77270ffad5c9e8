import type { Selectable } from 'kysely'
import { AppError } from '../../errors/app-error.js'
import { isID } from '../../lib/formats.js'
import type { RoomParticipantsTable, RoomsTable } from '../../storage/schema.js'

/** 1 personal, 2 group, 3 a support case's room (the visitor, the chatbot, agents). */
export const RoomType = { personal: 1, group: 2, case: 3 } as const

/** The room as embedded in a message. */
export interface RoomSummary {
  roomID: string
  name: string
  type: number
  imageURL: string
}

export interface Room extends RoomSummary {
  userIDs: string[]
  /** A group room's admins (docs/reference/client-api.md#group-roles); empty in other rooms. */
  adminUserIDs: string[]
  /** The customer's own ID of the room (server API); '' when not set. */
  xcRoomID: string
  created: number
  updated: number
}

/** Where a message goes: a room, or the personal room with a user. */
export interface SendTarget {
  roomID?: string | undefined
  recipientUserID?: string | undefined
}

/** A personal room's ID: `<smaller userID>-<larger userID>`, compared as numbers (docs/reference/client-api.md). */
export function personalRoomID(a: string, b: string): string {
  return BigInt(a) < BigInt(b) ? `${a}-${b}` : `${b}-${a}`
}

/** The other user of a personal room ID the user is in (canonical form only); else undefined. */
export function personalPeer(roomID: string, userID: string): string | undefined {
  const ids = roomID.split('-')
  if (ids.length !== 2 || !ids.every(isID) || !ids.includes(userID)) return undefined
  const [a, b] = ids as [string, string]
  const peer = a === userID ? b : a
  return peer !== userID && personalRoomID(a, b) === roomID ? peer : undefined
}

export const toRoomSummary = (row: Selectable<RoomsTable>): RoomSummary => ({
  roomID: row.id,
  name: row.name,
  type: row.type,
  imageURL: row.image_url,
})

export const toRoom = (
  row: Selectable<RoomsTable>,
  participants: Selectable<RoomParticipantsTable>[],
): Room => ({
  ...toRoomSummary(row),
  userIDs: participants.map((p) => p.user_id),
  adminUserIDs: participants.filter((p) => p.is_admin === 1).map((p) => p.user_id),
  xcRoomID: row.xc_room_id,
  created: row.created,
  updated: row.updated,
})

/** 409/40901: the customer's room ID names another room of the organization. */
export const xcRoomIDTaken = (xcRoomID: string) =>
  new AppError('conflict', `xcRoomID ${xcRoomID} is taken by another room`, 'xcRoomID')

/** The `created` up to which the user cleared the room's history (0: none), among its participants. */
export const clearedUpTo = (participants: readonly Selectable<RoomParticipantsTable>[], userID: string) =>
  participants.find((p) => p.user_id === userID)?.cleared_up_to ?? 0
