import type { Kysely } from 'kysely'
import { AppError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import { hashSecret, randomToken } from '../../lib/secrets.js'
import type { Database } from '../../storage/database.js'
import type { Schema } from '../../storage/schema.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Repositories } from '../repositories.js'
import { claimingUsername } from '../users/profiles.js'
import type { UserProfile } from '../users/user.js'

/** A ticket is valid for one hour (docs/reference/server-api.md) and can be exchanged once. */
export const TICKET_LIFETIME_MS = 60 * 60 * 1000

/** The device a ticket was requested for; it becomes the session's device on exchange. */
export interface Device {
  ipAddress: string
  userAgent: string
  platform: string
  deviceID: string
}

export interface IssuedTicket {
  userID: string
  ticket: string
  expiresAt: number
}

export class TicketsService {
  constructor(
    private readonly database: Database,
    private readonly repositories: Pick<Repositories, 'tickets' | 'users'>,
    private readonly clock: Clock,
    private readonly happenings: Dispatcher,
  ) {}

  /** Saves the user identified by (organization, xcUserID) and issues a ticket for them. */
  async issue(organizationID: string, profile: UserProfile, device: Device): Promise<IssuedTicket> {
    // A deactivated user gets no ticket (nor a profile update) until reactivated; the exchange
    // checks again, for a deactivation between this check and the ticket's use.
    const user = await this.repositories.users.findUserByXcUserID(
      this.database.db,
      organizationID,
      profile.xcUserID,
    )
    if (user?.deactivated_at != null)
      throw new AppError('forbidden', `User ${profile.xcUserID} is deactivated`, '105')
    const now = this.clock.now()
    const ticket = randomToken(32)
    const expiresAt = now + TICKET_LIFETIME_MS
    const newID = this.database.ids.next()
    const issue = (trx: Kysely<Schema>) =>
      this.repositories.tickets.upsertUserWithTicket(
        trx,
        this.database.dialect,
        { ...profile, id: newID, organizationID, now },
        {
          hash: hashSecret(ticket),
          organization_id: organizationID,
          ip_address: device.ipAddress,
          user_agent: device.userAgent,
          platform: device.platform,
          device_id: device.deviceID,
          created: now,
          expires_at: expiresAt,
        },
      )
    // A returning user (most tickets) is no new user, so no event: on PostgreSQL the upsert is then
    // one statement on its own, without the round trips of a transaction around it. A username
    // another user has is 409/40901 (field 109).
    if (user && this.database.dialect === 'postgres')
      return {
        userID: await claimingUsername(profile.username, () => issue(this.database.db), '109'),
        ticket,
        expiresAt,
      }
    const userID = await claimingUsername(
      profile.username,
      () =>
        this.database.transaction(async (trx) => {
          const userID = await issue(trx)
          // Created now (not found by its xcUserID): the backend hears of it with the change.
          if (userID === newID) {
            const user = { userID, xcUserID: profile.xcUserID, fullName: profile.fullName ?? '' }
            await this.happenings.emit(trx, 'user.created', { organizationID, user })
          }
          return userID
        }),
      '109',
    )
    return { userID, ticket, expiresAt }
  }
}
