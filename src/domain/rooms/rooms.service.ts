import type { Insertable, Selectable } from 'kysely'
import { AppError, paramError } from '../../errors/app-error.js'
import { isUniqueViolation } from '../../errors/faults.js'
import type { Clock } from '../../lib/clock.js'
import { isText } from '../../lib/formats.js'
import { Batcher } from '../../storage/batcher.js'
import type { Database } from '../../storage/database.js'
import type { RoomParticipantsTable, RoomsTable, UsersTable } from '../../storage/schema.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Repositories } from '../repositories.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import type { UsersService } from '../users/users.service.js'
import { type GroupRoomLimit, joinGroup } from './group-room-limit.js'
import { KeptReads } from './kept-reads.js'
import {
  personalPeer,
  personalRoomID,
  type Room,
  RoomType,
  type SendTarget,
  toRoom,
  xcRoomIDTaken,
} from './room.js'
import type { RoomRead, RoomReadKey } from './room-read.repository.js'

/** A group room as the server API (or a user, through createGroup) makes it. */
export interface NewGroupRoom {
  name: string
  imageURL?: string | undefined
  userIDs: string[]
  adminUserIDs?: string[] | undefined
  /** The customer's own ID of the room, unique in the organization (409/40901 when taken). */
  xcRoomID?: string | undefined
}

/** Who uses a room: a user of the organization. */
export type RoomUser = Pick<ClientIdentity, 'userID' | 'organizationID'>

/** A room the caller may use, with its participants. */
export interface RoomAccess {
  room: Selectable<RoomsTable>
  participants: Selectable<RoomParticipantsTable>[]
  /** Participants read as users along with the room (the caller, a recipient): known already. */
  users?: Selectable<UsersTable>[]
}

/**
 * Rooms and who is in them. A user sees only rooms of their organization (others do not exist:
 * 40401) and uses only rooms they are in (40301).
 */
export class RoomsService {
  /** Room reads on PostgreSQL, where a busy server's reads share round trips. */
  private readonly reads: Batcher<RoomReadKey, RoomAccess | undefined> | undefined
  /** SQLite: room reads, kept while nothing they read changes. */
  private readonly keptReads: KeptReads<RoomRead> | undefined

  constructor(
    private readonly database: Database,
    private readonly repositories: Pick<Repositories, 'rooms'>,
    private readonly clock: Clock,
    private readonly users: UsersService,
    private readonly happenings: Dispatcher,
    private readonly groupRooms: GroupRoomLimit,
  ) {
    if (database.dialect === 'postgres')
      this.reads = new Batcher((keys) => repositories.rooms.readRooms(database.db, keys))
    if (database.writeMarks)
      this.keptReads = new KeptReads(database.writeMarks, (roomID, userIDs) =>
        repositories.rooms.readRoom(database.db, roomID, userIDs),
      )
  }

  /** The room, its participants and up to two of them as users, as it is now; undefined if none. */
  private read(roomID: string, userIDs: RoomReadKey['userIDs'] = []): Promise<RoomAccess | undefined> {
    if (this.reads && isText(roomID)) return this.reads.run({ roomID, userIDs })
    if (this.keptReads) return this.keptReads.exact(roomID, userIDs)
    return this.repositories.rooms.readRoom(this.database.db, roomID, userIDs)
  }

  /** A group room of the caller and these users; the caller is its admin. */
  async createGroup(
    client: ClientIdentity,
    input: { name: string; imageURL?: string; userIDs: string[] },
  ): Promise<Room> {
    const members = [client.userID, ...input.userIDs.filter((id) => id !== client.userID)]
    return this.createGroupIn(client.organizationID, {
      ...input,
      userIDs: members,
      adminUserIDs: [client.userID],
    })
  }

  /**
   * A group room of the organization with these users (server API: nobody creates it as a user),
   * `adminUserIDs` among them its admins (none: only the server API manages it).
   */
  async createGroupIn(organizationID: string, input: NewGroupRoom): Promise<Room> {
    const members = [...new Set(input.userIDs)]
    const admins = input.adminUserIDs ?? []
    if (admins.some((id) => !members.includes(id))) throw paramError('adminUserIDs', 'must be among userIDs')
    await this.users.getMany(organizationID, members, { living: true })
    const now = this.clock.now()
    const row: Insertable<RoomsTable> = {
      id: this.database.ids.next(),
      organization_id: organizationID,
      type: RoomType.group,
      name: input.name,
      image_url: input.imageURL ?? '',
      xc_room_id: input.xcRoomID ?? '',
      created: now,
      updated: now,
    }
    await this.database
      .transaction(async (trx) => {
        await this.repositories.rooms.insertRoom(trx, row)
        await joinGroup(trx, this.groupRooms, row.id, members, now)
        await this.repositories.rooms.setAdmins(trx, row.id, admins, true)
      })
      .catch((error: unknown) => {
        throw isUniqueViolation(error) ? xcRoomIDTaken(input.xcRoomID ?? '') : error
      })
    return this.getIn(organizationID, row.id)
  }

  /** The organization's room, whoever is in it (server API). */
  async getIn(organizationID: string, roomID: string): Promise<Room> {
    const { room, participants } = await this.inOrganization(organizationID, roomID)
    return toRoom(room, participants)
  }

  async get(client: ClientIdentity, roomID: string): Promise<Room> {
    const { room, participants } = await this.access(client, roomID)
    return toRoom(room, participants)
  }

  /** Adds (or removes) users to (from) the organization's group room, unchecked (GroupRoles checks who asks). */
  async changeParticipantsIn(
    organizationID: string,
    roomID: string,
    change: { add: string[] } | { remove: string[] },
  ): Promise<Room> {
    const { room } = await this.inOrganization(organizationID, roomID)
    if (room.type !== RoomType.group) throw paramError('roomID', 'must be a group room')
    if ('add' in change) await this.addTo(organizationID, roomID, change.add)
    else await this.changeParticipants(roomID, change.remove)
    return this.getIn(organizationID, roomID)
  }

  private async addTo(organizationID: string, roomID: string, userIDs: string[]): Promise<void> {
    await this.users.getMany(organizationID, userIDs, { living: true })
    const now = this.clock.now()
    await this.database.transaction(async (trx) => {
      await joinGroup(trx, this.groupRooms, roomID, [...new Set(userIDs)], now)
      await this.repositories.rooms.touchRoom(trx, roomID, now)
    })
  }

  /**
   * Tells the room's other participants, and those who follow it (a case's agents), that the
   * caller started (or stopped) typing.
   */
  async typing(client: ClientIdentity, roomID: string, typing: boolean): Promise<void> {
    const { room, participants } = await this.access(client, roomID)
    const user = await this.users.get(client.organizationID, client.userID)
    const userIDs = participants.map((p) => p.user_id).filter((id) => id !== client.userID)
    const followersOfRoom = room.type === RoomType.case ? roomID : undefined
    await this.happenings.tell('typing.changed', { roomID, user, typing, userIDs, followersOfRoom })
  }

  /** Everyone who shares a room with the user. */
  peersOf(userID: string): Promise<string[]> {
    return this.repositories.rooms.roomPeers(this.database.db, userID)
  }

  /**
   * The room for a message send: `roomID`, or the personal room with `recipientUserID`, opened
   * on first use.
   */
  async forSend(client: ClientIdentity, target: SendTarget): Promise<RoomAccess> {
    const to = this.sendTarget(client, target)
    // The room, the sender and the recipient and whether one was deleted: one query, or kept (SQLite).
    const userIDs = [client.userID, to.recipientUserID] as const
    const read = await (this.keptReads?.forSend(to.roomID, userIDs) ?? this.read(to.roomID, userIDs))
    const access = this.sendAccess(client, to, read)
    if (access) return access
    const recipientUserID = to.recipientUserID as string
    await this.users.getMany(client.organizationID, [recipientUserID], { living: true })
    const now = this.clock.now()
    await this.database.transaction(async (trx) => {
      const room = {
        id: to.roomID,
        organization_id: client.organizationID,
        type: RoomType.personal,
        name: '',
      }
      await this.repositories.rooms.insertRoom(trx, { ...room, image_url: '', created: now, updated: now })
      await this.repositories.rooms.addParticipants(trx, to.roomID, [client.userID, recipientUserID], now)
    })
    return this.access(client, to.roomID)
  }

  /** The room a send goes to and, in a personal room, its recipient. */
  sendTarget(client: ClientIdentity, target: SendTarget): { roomID: string; recipientUserID?: string } {
    // A personal room is addressed by its ID before its first message too (clients compute it).
    const peer = target.roomID ? personalPeer(target.roomID, client.userID) : undefined
    if (target.roomID && !peer) return { roomID: target.roomID }
    const recipientUserID = peer ?? target.recipientUserID
    if (!recipientUserID) throw paramError('roomID', 'is required')
    if (recipientUserID === client.userID) throw paramError('recipientUserID', 'must be another user')
    return { roomID: personalRoomID(client.userID, recipientUserID), recipientUserID }
  }

  /**
   * A send's room as read (with the sender's and the recipient's rows), if the sender may send
   * there; undefined for a personal room not opened yet.
   */
  sendAccess(
    client: ClientIdentity,
    to: { roomID: string; recipientUserID?: string | undefined },
    read: RoomAccess | undefined,
  ): RoomAccess | undefined {
    if (!to.recipientUserID) {
      const access = this.checked(client, to.roomID, read)
      // A case's room takes messages through the case (its state and the chatbot's outbox).
      if (access.room.type === RoomType.case)
        throw paramError('roomID', 'is a case room; use case/send_message')
      return access
    }
    if (!read) return undefined
    const recipient = read.users?.find((user) => user.id === to.recipientUserID)
    if (recipient?.organization_id !== client.organizationID || recipient.deleted_at !== null)
      throw new AppError('notFound', `User ${to.recipientUserID} not found`)
    return this.checked(client, to.roomID, read)
  }

  /** The room, its participants and up to two of them as users, unchecked (the caller checked). */
  async snapshot(roomID: string, userIDs: RoomReadKey['userIDs'] = []): Promise<RoomAccess> {
    const read = await this.read(roomID, userIDs)
    if (!read) throw new AppError('notFound', `Room ${roomID} not found`)
    return read
  }

  /** The room and its participants, if the caller may see it and is in it. */
  async access(client: RoomUser, roomID: string, { participantOnly = true } = {}): Promise<RoomAccess> {
    // In a personal room, both users' rows come along: they are who sent its messages.
    const users = [client.userID, personalPeer(roomID, client.userID)] as const
    const read = await this.read(roomID, users)
    return this.checked(client, roomID, read, { participantOnly })
  }

  /** A room read for the caller, if they may see it (and, unless not `participantOnly`, are in it). */
  private checked(
    client: RoomUser,
    roomID: string,
    read: RoomAccess | undefined,
    { participantOnly = true } = {},
  ): RoomAccess {
    const access = this.ofOrganization(client.organizationID, roomID, read)
    if (participantOnly && !access.participants.some((p) => p.user_id === client.userID)) {
      throw new AppError('forbidden', `You are not a participant of room ${roomID}`)
    }
    return access
  }

  /** The room and its participants if it is the organization's (another's does not exist: 40401). */
  async inOrganization(organizationID: string, roomID: string): Promise<RoomAccess> {
    const read = await this.read(roomID)
    return this.ofOrganization(organizationID, roomID, read)
  }

  private ofOrganization(organizationID: string, roomID: string, read: RoomAccess | undefined) {
    // A deleted room exists for nobody.
    if (!read || read.room.organization_id !== organizationID || read.room.deleted_at !== null) {
      throw new AppError('notFound', `Room ${roomID} not found`)
    }
    return read
  }

  private async changeParticipants(roomID: string, userIDs: string[]): Promise<void> {
    const now = this.clock.now()
    await this.database.transaction(async (trx) => {
      await this.repositories.rooms.removeParticipants(trx, roomID, userIDs)
      await this.repositories.rooms.touchRoom(trx, roomID, now)
    })
  }
}
