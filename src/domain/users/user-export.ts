import type { Database } from '../../storage/database.js'
import type { Case } from '../cases/case.js'
import type { ExportedMessage } from '../messages/user-messages.js'
import type { Repositories } from '../repositories.js'
import { type Room, toRoom } from '../rooms/room.js'
import { toUserAccount, type UserAccount } from './user.js'
import type { UserAccounts, UserRef } from './user-accounts.js'

/** At most this many of the user's own messages, and of each case's messages, in one export. */
export const EXPORT_MESSAGE_LIMIT = 10_000
export const EXPORT_CASE_MESSAGE_LIMIT = 1_000

/** A case of the user's, with its room's messages (every sender's, oldest first). */
export interface ExportedCase extends Case {
  messages: ExportedMessage[]
  messagesTruncated: boolean
}

/** One user's data, for a data-access request (server API). */
export interface UserExport {
  user: UserAccount
  /** The rooms they are in (case rooms too), with their participants. */
  rooms: Room[]
  /** Every message they sent, oldest first (at most EXPORT_MESSAGE_LIMIT). */
  messages: ExportedMessage[]
  /** True when they sent more messages than the export holds. */
  messagesTruncated: boolean
  /** Their cases, newest first, each with its room's messages (every sender's, oldest first). */
  cases: ExportedCase[]
  exported: number
}

export interface UserExportsDependencies {
  database: Database
  repositories: Pick<Repositories, 'rooms'>
  accounts: UserAccounts
  casesOf: (organizationID: string, userID: string) => Promise<Case[]>
  sentBy: (userID: string, limit: number) => Promise<{ messages: ExportedMessage[]; truncated: boolean }>
  ofRoom: (roomID: string, limit: number) => Promise<{ messages: ExportedMessage[]; truncated: boolean }>
  now: () => number
}

/** Exports of a user's data (profile, rooms, messages, cases) as one JSON document. */
export class UserExports {
  constructor(private readonly deps: UserExportsDependencies) {}

  async export(organizationID: string, ref: UserRef): Promise<UserExport> {
    const { database, repositories } = this.deps
    const row = await this.deps.accounts.find(organizationID, ref)
    const rooms = await repositories.rooms.roomsOfUser(database.db, row.id)
    const participants = await repositories.rooms.participantsOfRooms(
      database.db,
      rooms.map((room) => room.id),
    )
    const own = await this.deps.sentBy(row.id, EXPORT_MESSAGE_LIMIT)
    const cases: ExportedCase[] = []
    for (const found of await this.deps.casesOf(organizationID, row.id)) {
      const messages = await this.deps.ofRoom(found.roomID, EXPORT_CASE_MESSAGE_LIMIT)
      cases.push({ ...found, messages: messages.messages, messagesTruncated: messages.truncated })
    }
    return {
      user: toUserAccount(row),
      rooms: rooms.map((room) =>
        toRoom(
          room,
          participants.filter((p) => p.room_id === room.id),
        ),
      ),
      messages: own.messages,
      messagesTruncated: own.truncated,
      cases,
      exported: this.deps.now(),
    }
  }
}
