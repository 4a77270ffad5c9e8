import { AppError, paramError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { Repositories } from '../repositories.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import { toUser, type User } from '../users/user.js'
import type { UsersService } from '../users/users.service.js'
import { CONTACTS_PER_USER, type Contact, phoneForms, toContact } from './contact.js'

export interface PeopleDependencies {
  database: Database
  repositories: Pick<Repositories, 'contacts' | 'blocks' | 'roomStates' | 'users'>
  clock: Clock
  users: UsersService
}

/**
 * A user's contacts (docs/reference/client-api.md, "Contacts"): users of their organization they
 * keep a list of, private to them; added one by one or by the phone numbers their backend gave.
 */
export class Contacts {
  constructor(private readonly deps: PeopleDependencies) {}

  /** The caller's contacts (deleted users left out), oldest first. */
  async list(client: ClientIdentity): Promise<Contact[]> {
    const rows = await this.deps.repositories.contacts.listContacts(this.deps.database.db, client.userID)
    return rows.map(({ contact_created, ...user }) => toContact(user, contact_created))
  }

  /** Adds a living user of the organization (not the caller) to the caller's contacts. */
  async add(client: ClientIdentity, userID: string): Promise<User> {
    if (userID === client.userID) throw paramError('userID', 'must be another user')
    const user = (await this.deps.users.getMany(client.organizationID, [userID], { living: true })).get(
      userID,
    )
    await this.store(client.userID, [userID])
    return user as User
  }

  /**
   * Adds the organization's users whose phone (as their backend gave it in the ticket request or
   * the server API) is one of these; answers them. Numbers that match nobody are skipped.
   */
  async addByPhones(client: ClientIdentity, phones: readonly string[]): Promise<User[]> {
    const forms = [...new Set(phones.flatMap(phoneForms))]
    const rows = await this.deps.repositories.contacts.usersByPhones(
      this.deps.database.db,
      client.organizationID,
      forms,
    )
    const found = rows.filter((row) => row.id !== client.userID)
    await this.store(
      client.userID,
      found.map((row) => row.id),
    )
    return found.map(toUser)
  }

  async remove(client: ClientIdentity, userID: string): Promise<void> {
    await this.deps.repositories.contacts.removeContact(this.deps.database.db, client.userID, userID)
  }

  /** Adds contacts within the limit: a call that would pass it adds none (40902). */
  private async store(userID: string, contactIDs: string[]): Promise<void> {
    if (contactIDs.length === 0) return
    const { contacts } = this.deps.repositories
    await this.deps.database.transaction(async (trx) => {
      await contacts.addContacts(trx, userID, contactIDs, this.deps.clock.now())
      if ((await contacts.countContacts(trx, userID)) > CONTACTS_PER_USER)
        throw new AppError('limitReached', `A user keeps at most ${CONTACTS_PER_USER} contacts`, 'userID')
    })
  }
}
