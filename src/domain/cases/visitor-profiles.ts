import { AppError } from '../../errors/app-error.js'
import type { Database } from '../../storage/database.js'
import type { AgentIdentity } from '../agents/agent.js'
import type { Repositories } from '../repositories.js'
import type { TaggedCase } from './case.js'
import type { CaseRows } from './case-rows.js'

/** The device a visitor last signed in from, as their app's backend described it in the ticket request. */
export interface VisitorDevice {
  platform: string
  deviceID: string
  userAgent: string
  /** When that session began (epoch ms). */
  signedIn: number
}

/** A visitor as agents see them: the profile the ticket request stored, and their last device. */
export interface VisitorProfile {
  userID: string
  xcUserID: string
  fullName: string
  email: string
  phone: string
  username: string
  userRoleCode: string
  created: number
  updated: number
  device: VisitorDevice | null
}

/** How many of a visitor's cases come with their profile (the newest). */
export const VISITOR_CASES = 20

/** Who a case's visitor is, for the agents of the visitor's organization (docs/reference/agent-api.md). */
export class VisitorProfiles {
  constructor(
    private readonly deps: {
      database: Database
      repositories: Pick<Repositories, 'users' | 'sessions' | 'cases'>
      rows: CaseRows
    },
  ) {}

  /** The visitor's profile and their newest cases (another organization's visitor does not exist). */
  async get(agent: AgentIdentity, userID: string): Promise<{ visitor: VisitorProfile; cases: TaggedCase[] }> {
    const { db } = this.deps.database
    const { users, sessions, cases } = this.deps.repositories
    const [[user], session, rows] = await Promise.all([
      users.findUsers(db, agent.organizationID, [userID]),
      sessions.latestSessionOf(db, userID),
      cases.casesOfVisitor(db, agent.organizationID, userID, VISITOR_CASES),
    ])
    if (!user) throw new AppError('notFound', `User ${userID} not found`)
    const visitor: VisitorProfile = {
      userID: user.id,
      xcUserID: user.xc_user_id,
      fullName: user.full_name,
      email: user.email,
      phone: user.phone,
      username: user.username,
      userRoleCode: user.user_role_code,
      created: user.created,
      updated: user.updated,
      // An erased visitor's device is gone with them (their sessions keep no device either).
      device:
        session && session.organization_id === agent.organizationID && user.deleted_at === null
          ? {
              platform: session.platform,
              deviceID: session.device_id,
              userAgent: session.user_agent,
              signedIn: session.created,
            }
          : null,
    }
    return { visitor, cases: await this.deps.rows.tagged(rows) }
  }
}
