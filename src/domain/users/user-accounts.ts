import type { Selectable, Updateable } from 'kysely'
import { AppError, paramError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { UsersTable } from '../../storage/schema.js'
import type { Actor } from '../audit/actor.js'
import type { AuditLog } from '../audit/audit.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Repositories } from '../repositories.js'
import { claimingUsername } from './profiles.js'
import { toUserAccount, type UserAccount, type UserProfile } from './user.js'

/** Names a user: by userID, else by xcUserID. */
export interface UserRef {
  userID?: string | undefined
  xcUserID?: string | undefined
}

/** What a profile update may change (xcUserID names the user and never changes). */
export type ProfileChanges = Partial<Omit<UserProfile, 'xcUserID'>>

/** What becomes of a deleted user's messages: erased (as a message delete does) or kept, anonymised. */
export type ErasureOfMessages = 'erase' | 'anonymise'

export interface UserAccountsDependencies {
  database: Database
  clock: Clock
  audit: AuditLog
  repositories: Pick<Repositories, 'users' | 'sessions' | 'tickets'>
  /** Ends every session of the user at once; how many. */
  revokeSessions: (userID: string) => Promise<number>
  /** Closes the user's open cases through the case engine; how many were open. */
  closeCases: (organizationID: string, userID: string) => Promise<number>
  /** Erases every message the user sent (and what their cases quote of them); how many messages. */
  eraseMessages: (organizationID: string, userID: string) => Promise<number>
  /** Where the deletion is reported (`user.deleted`, in its transaction). */
  happenings: Dispatcher
  /** Removes the files the user uploaded and never sent, and their profile photos (bytes and names). */
  eraseUploads: (userID: string) => Promise<void>
  /** Erases what stored deliveries hold of the user (the `user.deleted` notice goes on). */
  eraseDeliveries: (userID: string) => Promise<void>
}

export interface Deletion {
  userID: string
  sessionsRevoked: number
  casesClosed: number
  messagesErased: number
}

const COLUMNS = {
  fullName: 'full_name',
  email: 'email',
  phone: 'phone',
  username: 'username',
  photoThumbnailURL: 'photo_thumbnail_url',
  photoFullsizeURL: 'photo_fullsize_url',
  userRoleCode: 'user_role_code',
  bio: 'bio',
} as const satisfies Record<keyof ProfileChanges, keyof UsersTable>

/**
 * The customer's backend and its organization's users (server API): read, list, update, end and
 * restore their access, erase them. A deleted user (and another organization's) does not exist here.
 */
export class UserAccounts {
  constructor(private readonly deps: UserAccountsDependencies) {}

  async get(organizationID: string, ref: UserRef): Promise<UserAccount> {
    return toUserAccount(await this.find(organizationID, ref))
  }

  /** A page of the organization's users by userID, after `afterUserID` ('' from the start). */
  async list(organizationID: string, page: { afterUserID: string; limit: number }) {
    const rows = await this.deps.repositories.users.listUsers(this.deps.database.db, {
      organizationID,
      afterUserID: page.afterUserID,
      limit: page.limit + 1,
    })
    return { users: rows.slice(0, page.limit).map(toUserAccount), hasMore: rows.length > page.limit }
  }

  /** Changes the given profile fields ('' clears an optional one); absent ones stay. */
  async update(organizationID: string, ref: UserRef, changes: ProfileChanges): Promise<UserAccount> {
    if (changes.fullName !== undefined && changes.fullName.trim() === '')
      throw paramError('fullName', 'is required', '106')
    const row = await this.find(organizationID, ref)
    const set: Updateable<UsersTable> = { updated: this.deps.clock.now() }
    for (const [field, column] of Object.entries(COLUMNS)) {
      const value = changes[field as keyof ProfileChanges]
      if (value !== undefined) set[column] = value
    }
    await claimingUsername(
      changes.username,
      () => this.deps.repositories.users.updateUser(this.deps.database.db, row.id, set),
      '109',
    )
    return this.get(organizationID, { userID: row.id })
  }

  /** Ends the user's access at once (sessions revoked, sockets closed) and refuses new tickets. */
  async deactivate(actor: Actor, organizationID: string, ref: UserRef): Promise<UserAccount> {
    const row = await this.find(organizationID, ref)
    if (row.deactivated_at === null) {
      await this.deps.database.transaction(async (trx) => {
        await this.deps.repositories.users.updateUser(trx, row.id, { deactivated_at: this.deps.clock.now() })
        await this.deps.audit.record(actor, organizationID, 'user.deactivate', { userID: row.id }, trx)
      })
    }
    // Again for a deactivated user: a session a ticket exchange opened meanwhile ends too.
    await this.deps.revokeSessions(row.id)
    return this.get(organizationID, { userID: row.id })
  }

  /** Lets the user have tickets again (their ended sessions stay ended). */
  async reactivate(actor: Actor, organizationID: string, ref: UserRef): Promise<UserAccount> {
    const row = await this.find(organizationID, ref)
    if (row.deactivated_at !== null) {
      await this.deps.database.transaction(async (trx) => {
        await this.deps.repositories.users.updateUser(trx, row.id, { deactivated_at: null })
        await this.deps.audit.record(actor, organizationID, 'user.reactivate', { userID: row.id }, trx)
      })
    }
    return this.get(organizationID, { userID: row.id })
  }

  /** Signs the user out everywhere (tokens refused, sockets closed); they may sign in again. */
  async revokeSessions(actor: Actor, organizationID: string, ref: UserRef): Promise<number> {
    const row = await this.find(organizationID, ref)
    const revoked = await this.deps.revokeSessions(row.id)
    await this.deps.audit.record(actor, organizationID, 'user.revoke_sessions', { userID: row.id, revoked })
    return revoked
  }

  /**
   * Erases the user, irreversibly: the profile and their devices blanked (their xcUserID freed),
   * sessions ended, open cases closed, messages erased or kept under "Deleted user", unsent uploads
   * and what deliveries hold of them removed (docs/reference/privacy.md). Audited by userID alone.
   */
  async delete(
    actor: Actor,
    organizationID: string,
    ref: UserRef,
    messages: ErasureOfMessages,
  ): Promise<Deletion> {
    const row = await this.find(organizationID, ref)
    const { users, sessions, tickets } = this.deps.repositories
    const erased = await this.deps.database.transaction(async (trx) => {
      const done = await users.eraseUser(trx, row.id, this.deps.clock.now())
      if (!done) return false
      // The devices of the ticket requests, as sessions and tickets copied them.
      await sessions.eraseDevicesOfUser(trx, row.id)
      await tickets.deleteTicketsOfUser(trx, row.id)
      await this.deps.audit.record(actor, organizationID, 'user.delete', { userID: row.id, messages }, trx)
      // Who it was, as the backend knew them: the profile is gone from Parley once this commits.
      const user = { userID: row.id, xcUserID: row.xc_user_id, fullName: row.full_name }
      await this.deps.happenings.emit(trx, 'user.deleted', { organizationID, user })
      return true
    })
    // Deleted by a concurrent request meanwhile.
    if (!erased) throw notFound(ref)
    const sessionsRevoked = await this.deps.revokeSessions(row.id)
    const casesClosed = await this.deps.closeCases(organizationID, row.id)
    const messagesErased = messages === 'erase' ? await this.deps.eraseMessages(organizationID, row.id) : 0
    await this.deps.eraseUploads(row.id)
    // Last: closing the cases recorded events that name them.
    await this.deps.eraseDeliveries(row.id)
    return { userID: row.id, sessionsRevoked, casesClosed, messagesErased }
  }

  /** The userID of a user who may act (server API sends and cases for them): not deactivated. */
  async active(organizationID: string, ref: UserRef): Promise<string> {
    const row = await this.find(organizationID, ref)
    if (row.deactivated_at !== null) throw new AppError('forbidden', `User ${row.id} is deactivated`)
    return row.id
  }

  /** The user's row (not deleted) of the organization, by userID else xcUserID. */
  async find(organizationID: string, ref: UserRef): Promise<Selectable<UsersTable>> {
    if (!ref.userID && !ref.xcUserID) throw paramError('userID', 'is required')
    const { users } = this.deps.repositories
    const { db } = this.deps.database
    const row = ref.userID
      ? (await users.findUsers(db, organizationID, [ref.userID]))[0]
      : await users.findUserByXcUserID(db, organizationID, ref.xcUserID ?? '')
    if (!row || row.deleted_at !== null) throw notFound(ref)
    return row
  }
}

const notFound = (ref: UserRef) =>
  new AppError(
    'notFound',
    ref.userID ? `User ${ref.userID} not found` : `User with xcUserID ${ref.xcUserID} not found`,
  )
