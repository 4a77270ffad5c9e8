import { AppError } from '../../errors/app-error.js'
import type { Database } from '../../storage/database.js'
import type { Repositories } from '../repositories.js'
import { toUser, type User } from './user.js'

/** Users as the client APIs see them: only users of the caller's own organization exist. */
export class UsersService {
  constructor(
    private readonly database: Database,
    private readonly repositories: Pick<Repositories, 'users'>,
  ) {}

  async get(organizationID: string, userID: string): Promise<User> {
    const [row] = await this.repositories.users.findUsers(this.database.db, organizationID, [userID])
    if (!row) throw new AppError('notFound', `User ${userID} not found`)
    return toUser(row)
  }

  async getByXcUserID(organizationID: string, xcUserID: string): Promise<User> {
    const row = await this.repositories.users.findUserByXcUserID(this.database.db, organizationID, xcUserID)
    if (!row) throw new AppError('notFound', `User with xcUserID ${xcUserID} not found`)
    return toUser(row)
  }

  /**
   * The users among `userIDs`, by id; throws notFound naming the first one that does not exist.
   * A deleted user exists as "Deleted user" (senders of old messages), but not `living`: no one
   * adds them to a room or writes to them.
   */
  async getMany(
    organizationID: string,
    userIDs: readonly string[],
    { living = false } = {},
  ): Promise<Map<string, User>> {
    const unique = [...new Set(userIDs)]
    const found = await this.repositories.users.findUsers(this.database.db, organizationID, unique)
    const rows = living ? found.filter((row) => row.deleted_at === null) : found
    const users = new Map(rows.map((row) => [row.id, toUser(row)]))
    const missing = unique.find((id) => !users.has(id))
    if (missing !== undefined) throw new AppError('notFound', `User ${missing} not found`)
    return users
  }
}
