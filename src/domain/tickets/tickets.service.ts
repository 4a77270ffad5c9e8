import { AppError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import { hashSecret, randomToken } from '../../lib/secrets.js'
import type { Database } from '../../storage/database.js'
import type { Repositories } from '../repositories.js'
import type { UserProfile } from '../users/user.js'

/** A ticket is valid for one hour (spec §4.1) and can be exchanged once. */
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
    const userID = await this.repositories.tickets.upsertUserWithTicket(
      this.database,
      { ...profile, id: this.database.ids.next(), organizationID, now },
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
    return { userID, ticket, expiresAt }
  }
}
