import { AppError, paramError } from '../../errors/app-error.js'
import { isUniqueViolation } from '../../errors/faults.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { FileObject, Files } from '../files/files.service.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Repositories } from '../repositories.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import type { UsersService } from '../users/users.service.js'
import { type Room, RoomType, toRoom, xcRoomIDTaken } from './room.js'
import type { RoomAccess, RoomsService } from './rooms.service.js'

export interface GroupRolesDependencies {
  database: Database
  clock: Clock
  repositories: Pick<Repositories, 'rooms'>
  rooms: RoomsService
  users: UsersService
  files: Files
  happenings: Dispatcher
}

/** Changes of a group room's name and photo (client API); absent fields stay. */
export interface RoomChanges {
  name?: string | undefined
  imageURL?: string | undefined
}

/** The server API's changes: those, and the customer's own room ID. */
export interface ServerRoomChanges extends RoomChanges {
  xcRoomID?: string | undefined
}

type Roles = { user_id: string; is_admin: number }[]

/** What a file the room's photo is carries it as (a message carries its file by its messageID). */
const photoHolder = (roomID: string, fileID: string) => `room:${roomID}:${fileID}`

/**
 * Group rooms' roles (docs/reference/client-api.md#group-roles): only an admin renames the room,
 * changes its photo, adds or removes members, promotes or demotes admins, or deletes it; a room an
 * admin was in keeps one (the last cannot leave, be removed or demoted without naming another).
 * Also what any participant does for themselves: leave, clear the history, find rooms.
 */
export class GroupRoles {
  constructor(private readonly deps: GroupRolesDependencies) {}

  async update(client: ClientIdentity, roomID: string, changes: RoomChanges): Promise<Room> {
    await this.adminAccess(client, roomID)
    return this.updateIn(client.organizationID, roomID, changes)
  }

  /** Changes the organization's group room, whoever asks (the server API, or an admin). */
  async updateIn(organizationID: string, roomID: string, changes: ServerRoomChanges): Promise<Room> {
    if (changes.name !== undefined && changes.name.trim() === '') throw paramError('name', 'is required')
    const { room } = await this.groupOf(organizationID, roomID)
    const fields = {
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      // A URL given replaces an uploaded photo.
      ...(changes.imageURL !== undefined ? { image_url: changes.imageURL, photo_file_id: null } : {}),
      ...(changes.xcRoomID !== undefined ? { xc_room_id: changes.xcRoomID } : {}),
    }
    await this.deps.database
      .transaction((trx) => this.deps.repositories.rooms.updateRoomFields(trx, roomID, fields, this.now()))
      .catch((error: unknown) => {
        throw isUniqueViolation(error) ? xcRoomIDTaken(changes.xcRoomID ?? '') : error
      })
    if (changes.imageURL !== undefined) await this.removePhoto(roomID, room.photo_file_id)
    return this.changed(organizationID, roomID)
  }

  /** An uploaded image becomes the room's photo (its imageURL: a link as long as it lasts). */
  async uploadPhoto(client: ClientIdentity, roomID: string, file: FileObject): Promise<Room> {
    const { room } = await this.adminAccess(client, roomID)
    await this.deps.database.transaction(async (trx) => {
      const links = await this.deps.files.carry(trx, file, photoHolder(roomID, file.fileID))
      const fields = { image_url: String(links.url), photo_file_id: file.fileID }
      await this.deps.repositories.rooms.updateRoomFields(trx, roomID, fields, this.now())
    })
    await this.removePhoto(roomID, room.photo_file_id)
    return this.changed(client.organizationID, roomID)
  }

  async addParticipants(client: ClientIdentity, roomID: string, userIDs: string[]): Promise<Room> {
    await this.adminAccess(client, roomID)
    return this.changeParticipantsIn(client.organizationID, roomID, { add: userIDs })
  }

  /** Removes members; an admin removing themselves is leaving (another admin must remain). */
  async removeParticipants(client: ClientIdentity, roomID: string, userIDs: string[]): Promise<Room> {
    const { participants } = await this.adminAccess(client, roomID)
    keepsAnAdmin(participants, userIDs)
    return this.changeParticipantsIn(client.organizationID, roomID, { remove: userIDs })
  }

  /** Adds or removes participants of the organization's group room (an admin, or the server API). */
  async changeParticipantsIn(
    organizationID: string,
    roomID: string,
    change: { add: string[] } | { remove: string[] },
  ): Promise<Room> {
    const { participants } = await this.groupOf(organizationID, roomID)
    await this.deps.rooms.changeParticipantsIn(organizationID, roomID, change)
    return this.changed(
      organizationID,
      roomID,
      participants.map((p) => p.user_id),
    )
  }

  /** Makes participants admins (`promote`) or members; a room keeps at least one admin. */
  async setAdmins(client: ClientIdentity, roomID: string, userIDs: string[], promote: boolean) {
    await this.groupOf(client.organizationID, roomID)
    const { database, repositories } = this.deps
    await database.transaction(async (trx) => {
      // Read again under the room's lock: two admins demoting each other at once go one at a time.
      const roles = await repositories.rooms.lockedRoles(trx, roomID, database.dialect)
      requireAdminIn(roles, client, roomID)
      const missing = userIDs.find((id) => !roles.some((p) => p.user_id === id))
      if (missing !== undefined)
        throw paramError('userIDs', `holds ${missing}, not a participant of the room`)
      if (!promote) keepsAnAdmin(roles, userIDs, 'demoted')
      await repositories.rooms.setAdmins(trx, roomID, userIDs, promote)
      await repositories.rooms.touchRoom(trx, roomID, this.now())
    })
    return this.changed(client.organizationID, roomID)
  }

  /**
   * Leaves a group room. The last admin of a room others stay in names the next (`adminUserID`, a
   * participant), or is refused (409/40901).
   */
  async leave(client: ClientIdentity, roomID: string, adminUserID?: string): Promise<void> {
    const { participants } = await this.groupAccess(client, roomID)
    const { database, repositories } = this.deps
    await database.transaction(async (trx) => {
      const roles = await repositories.rooms.lockedRoles(trx, roomID, database.dialect)
      if (adminUserID !== undefined) {
        if (adminUserID === client.userID || !roles.some((p) => p.user_id === adminUserID))
          throw paramError('adminUserID', 'must be another participant of the room')
        requireAdminIn(roles, client, roomID)
        await repositories.rooms.setAdmins(trx, roomID, [adminUserID], true)
      } else keepsAnAdmin(roles, [client.userID])
      await repositories.rooms.removeParticipants(trx, roomID, [client.userID])
      await repositories.rooms.touchRoom(trx, roomID, this.now())
    })
    await this.changed(
      client.organizationID,
      roomID,
      participants.map((p) => p.user_id),
    )
  }

  /** Deletes the group room for everyone: it no longer exists, its photo with it. */
  async delete(client: ClientIdentity, roomID: string): Promise<void> {
    const { room, participants } = await this.adminAccess(client, roomID)
    await this.deps.database.transaction((trx) =>
      this.deps.repositories.rooms.deleteRoom(trx, roomID, this.now()),
    )
    await this.removePhoto(roomID, room.photo_file_id)
    const userIDs = participants.map((p) => p.user_id)
    await this.deps.happenings.tell('room.deleted', { roomID, userIDs })
  }

  /**
   * Hides each room's history up to its newest message for the caller only (their read mark moves
   * there too); the others keep theirs. The rooms cleared.
   */
  async clearChat(client: ClientIdentity, roomIDs: readonly string[]): Promise<string[]> {
    for (const roomID of roomIDs) await this.deps.rooms.access(client, roomID)
    const { database, repositories } = this.deps
    for (const roomID of roomIDs) {
      const clearedUpTo = await database.transaction(async (trx) => {
        const upTo = await repositories.rooms.clearHistory(trx, roomID, client.userID)
        await repositories.rooms.advanceReceipts(trx, { roomID, userID: client.userID, upTo, read: true })
        return upTo
      })
      await this.deps.happenings.tell('room.cleared', { roomID, userID: client.userID, clearedUpTo })
    }
    return [...roomIDs]
  }

  /** The room with the customer's ID `xcRoomID`, if the caller is in it. */
  async byXcRoomID(client: ClientIdentity, xcRoomID: string): Promise<Room> {
    const { database, repositories } = this.deps
    const found = await repositories.rooms.findRoomByXcRoomID(database.db, client.organizationID, xcRoomID)
    if (!found) throw new AppError('notFound', `Room with xcRoomID ${xcRoomID} not found`)
    return this.deps.rooms.get(client, found.id)
  }

  /** The group rooms the caller and the user are both in, newest first. */
  async groupsInCommon(client: ClientIdentity, userID: string): Promise<Room[]> {
    await this.deps.users.get(client.organizationID, userID)
    const { database, repositories } = this.deps
    const rows = await repositories.rooms.groupsInCommon(database.db, client.userID, userID)
    const rooms = await repositories.rooms.findRooms(
      database.db,
      rows.map((row) => row.id),
    )
    const participants = await repositories.rooms.participantsOfRooms(
      database.db,
      rooms.map((room) => room.id),
    )
    return rows.flatMap(({ id }) => {
      const room = rooms.find((r) => r.id === id)
      return room
        ? [
            toRoom(
              room,
              participants.filter((p) => p.room_id === id),
            ),
          ]
        : []
    })
  }

  private async groupOf(organizationID: string, roomID: string): Promise<RoomAccess> {
    const access = await this.deps.rooms.inOrganization(organizationID, roomID)
    if (access.room.type !== RoomType.group) throw paramError('roomID', 'must be a group room')
    return access
  }

  private async groupAccess(client: ClientIdentity, roomID: string): Promise<RoomAccess> {
    const access = await this.deps.rooms.access(client, roomID)
    if (access.room.type !== RoomType.group) throw paramError('roomID', 'must be a group room')
    return access
  }

  /** Refuses a caller who is not an admin of the group room (40301), before anything is done. */
  async requireAdmin(client: ClientIdentity, roomID: string): Promise<void> {
    await this.adminAccess(client, roomID)
  }

  private async adminAccess(client: ClientIdentity, roomID: string): Promise<RoomAccess> {
    const access = await this.groupAccess(client, roomID)
    requireAdminIn(access.participants, client, roomID)
    return access
  }

  /** The room as it is now, told to its participants and to `alsoTo` (those who left it). */
  private async changed(organizationID: string, roomID: string, alsoTo: readonly string[] = []) {
    const room = await this.deps.rooms.getIn(organizationID, roomID)
    const userIDs = [...new Set([...room.userIDs, ...alsoTo])]
    await this.deps.happenings.tell('room.changed', { room, userIDs })
    return room
  }

  private async removePhoto(roomID: string, fileID: string | null): Promise<void> {
    if (fileID !== null) await this.deps.files.deleteOfMessages([photoHolder(roomID, fileID)])
  }

  private now(): number {
    return this.deps.clock.now()
  }
}

function requireAdminIn(roles: Roles, client: ClientIdentity, roomID: string): void {
  if (!roles.some((p) => p.user_id === client.userID && p.is_admin === 1))
    throw new AppError('forbidden', `Only an admin of room ${roomID} may do this`)
}

/**
 * Refuses (409/40901) a change that takes `leaving` out of the admins (removed, or `demoted`) of a
 * room that has admins and would have none while others stay in it.
 */
function keepsAnAdmin(roles: Roles, leaving: readonly string[], how: 'demoted' | 'removed' = 'removed') {
  const admins = roles.filter((p) => p.is_admin === 1)
  const staying = roles.filter((p) => how === 'demoted' || !leaving.includes(p.user_id))
  if (admins.length === 0 || staying.length === 0) return
  if (admins.every((p) => leaving.includes(p.user_id)))
    throw new AppError(
      'conflict',
      'A group room keeps an admin: promote another first, or name one (adminUserID)',
    )
}
