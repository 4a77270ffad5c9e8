import type { Selectable } from 'kysely'
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
  created: row.created,
  updated: row.updated,
})
