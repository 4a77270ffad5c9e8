import { AppError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import { newID } from '../../lib/ids.js'
import type { Database } from '../../storage/database.js'
import { findOrganization, insertOrganization } from './organizations.repository.js'

/** An organization: the customer, owner of users, keys, chatbots and agents. */
export interface Organization {
  organizationID: string
  name: string
  created: number
  updated: number
}

export class OrganizationsService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  async create(name: string): Promise<Organization> {
    const now = this.clock.now()
    const row = { id: newID(), name, created: now, updated: now }
    await insertOrganization(this.database.db, row)
    return { organizationID: row.id, name, created: now, updated: now }
  }

  /** Throws notFound when there is no such organization. */
  async get(organizationID: string): Promise<Organization> {
    const row = await findOrganization(this.database.db, organizationID)
    if (!row) throw new AppError('notFound', `Organization ${organizationID} not found`)
    return { organizationID: row.id, name: row.name, created: row.created, updated: row.updated }
  }
}
