import { AppError, paramError } from '../../errors/app-error.js'
import { isID } from '../../lib/formats.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Message } from '../messages/message.js'
import { RoomType } from '../rooms/room.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import type { User } from '../users/user.js'
import { BLOCKS_PER_USER, type Contact, toContact } from './contact.js'
import type { PeopleDependencies } from './contacts.js'
import { KnownBlocks } from './known-blocks.js'

/** What the customer's backend reads of a user's blocks (server API). */
export interface BlocksOfUser {
  /** Whom the user blocked. */
  blocked: { userID: string; created: number }[]
  /** Who blocked the user. */
  blockedBy: { userID: string; created: number }[]
}

/**
 * Blocking (docs/reference/client-api.md, "Blocking"), private to the blocker: the blocked user is
 * not told. They cannot send to the blocker in their personal room, nor open it (40303); they do not
 * see the blocker's presence or typing; in group rooms their messages still reach the blocker,
 * marked `senderBlocked` for the blocker alone.
 */
export class Blocks {
  /** SQLite: blockers' lists, kept (a send reads none); undefined on PostgreSQL. */
  private readonly known: KnownBlocks | undefined

  constructor(private readonly deps: PeopleDependencies & { happenings: Dispatcher }) {
    if (deps.database.dialect === 'sqlite') this.known = new KnownBlocks(deps.database, deps.repositories)
  }

  /** Blocks a user of the organization; they leave the caller's contacts. Blocking again changes nothing. */
  async block(client: ClientIdentity, userID: string): Promise<void> {
    if (userID === client.userID) throw paramError('userID', 'must be another user')
    const user = (await this.deps.users.getMany(client.organizationID, [userID])).get(userID) as User
    const { blocks, contacts } = this.deps.repositories
    const blocked = await this.deps.database.transaction(async (trx) => {
      if (!(await blocks.insertBlock(trx, client.userID, userID, this.deps.clock.now()))) return false
      if ((await blocks.countBlocked(trx, client.userID)) > BLOCKS_PER_USER)
        throw new AppError('limitReached', `A user blocks at most ${BLOCKS_PER_USER} users`, 'userID')
      await contacts.removeContact(trx, client.userID, userID)
      return true
    })
    if (blocked) await this.changed(client, user, true)
  }

  async unblock(client: ClientIdentity, userID: string): Promise<void> {
    const user = (await this.deps.users.getMany(client.organizationID, [userID])).get(userID) as User
    const [deleted] = await this.deps.repositories.blocks.deleteBlock(
      this.deps.database.db,
      client.userID,
      userID,
    )
    if (Number(deleted?.numDeletedRows ?? 0) > 0) await this.changed(client, user, false)
  }

  /** An erased user's list of blocks is no longer kept. */
  forget(userID: string): void {
    this.known?.changed(userID)
  }

  /** A block made or ended: kept lists read afresh, and the blocker's other devices told. */
  private async changed(client: ClientIdentity, user: User, blocked: boolean): Promise<void> {
    this.known?.changed(client.userID)
    const exceptSessionID = client.sessionID
    await this.deps.happenings.tell('block.changed', {
      userID: client.userID,
      user,
      blocked,
      exceptSessionID,
    })
  }

  /** The users the caller blocked, oldest block first. */
  async list(client: ClientIdentity): Promise<Contact[]> {
    const rows = await this.deps.repositories.blocks.listBlocked(this.deps.database.db, client.userID)
    return rows.map(({ blocked_created, ...user }) => toContact(user, blocked_created))
  }

  /** The IDs of the users `userID` blocked. */
  blockedBy(userID: string): Promise<string[]> {
    return this.deps.repositories.blocks.blockedIDs(this.deps.database.db, userID)
  }

  /** Refuses a send (or the opening of a personal room) to a recipient who blocked the sender. */
  async refuseBlocked(senderID: string, recipientID: string): Promise<void> {
    const blocked = this.known
      ? await this.known.has(recipientID, senderID)
      : await this.deps.repositories.blocks.isBlocked(this.deps.database.db, recipientID, senderID)
    if (blocked)
      throw new AppError('blocked', `You cannot send messages to user ${recipientID}`, 'recipientUserID')
  }

  /** Of `userIDs`, those who may see `userID`'s presence and typing: not those `userID` blocked. */
  async notBlockedBy(userID: string, userIDs: readonly string[]): Promise<string[]> {
    if (!isID(userID) || userIDs.length === 0) return [...userIDs]
    const blocked = new Set(await this.blockedBy(userID))
    return blocked.size === 0 ? [...userIDs] : userIDs.filter((id) => !blocked.has(id))
  }

  /**
   * Who hears which messages of a room: in a group room, those of `userIDs` who blocked a
   * message's sender get it marked, the others as it is; elsewhere everyone gets them all as they are.
   */
  async audiences(roomType: number, messages: readonly Message[], userIDs: readonly string[]) {
    if (roomType !== RoomType.group) return [{ messages, userIDs }]
    const groups: { messages: readonly Message[]; userIDs: readonly string[] }[] = []
    const blockersOf = new Map<string, string[]>()
    for (const message of messages) {
      const senderID = message.user.userID
      const blockers = blockersOf.get(senderID) ?? (await this.blockersAmong(senderID, userIDs))
      blockersOf.set(senderID, blockers)
      groups.push({ messages: [message], userIDs: userIDs.filter((id) => !blockers.includes(id)) })
      if (blockers.length > 0) groups.push({ messages: [marked(message)], userIDs: blockers })
    }
    return groups
  }

  /** Of `userIDs`, those who blocked `senderID` (none for a sender that is no user). */
  private async blockersAmong(senderID: string, userIDs: readonly string[]): Promise<string[]> {
    if (!isID(senderID)) return []
    const blockers = await this.deps.repositories.blocks.blockersOf(this.deps.database.db, senderID)
    const among = new Set(userIDs)
    return blockers.map((row) => row.blocker_id).filter((id) => among.has(id))
  }

  /** Messages as `viewerID` reads them: those of group rooms whose sender they blocked marked. */
  async markedFor(viewerID: string, messages: Message[]): Promise<Message[]> {
    const others = (m: Message) => m.room.type === RoomType.group && m.user.userID !== viewerID
    if (!messages.some(others)) return messages
    const blocked = new Set(await this.blockedBy(viewerID))
    if (blocked.size === 0) return messages
    return messages.map((m) => (others(m) && blocked.has(m.user.userID) ? marked(m) : m))
  }

  /** A user's blocks both ways (server API; the caller found the user in its organization). */
  async ofUser(userID: string): Promise<BlocksOfUser> {
    const { blocks } = this.deps.repositories
    const db = this.deps.database.db
    const [blocked, blockedBy] = await Promise.all([
      blocks.listBlocked(db, userID),
      blocks.blockersOf(db, userID),
    ])
    return {
      blocked: blocked.map((row) => ({ userID: row.id, created: row.blocked_created })),
      blockedBy: blockedBy.map((row) => ({ userID: row.blocker_id, created: row.created })),
    }
  }
}

/** The message as one who blocked its sender receives it. */
export const marked = (message: Message): Message => ({ ...message, senderBlocked: true })
