import { AppError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { Actor } from '../audit/actor.js'
import type { AuditLog } from '../audit/audit.js'
import type { Repositories } from '../repositories.js'

/** An organization: the customer, owner of users, keys, chatbots and agents. */
export interface Organization {
  organizationID: string
  name: string
  created: number
  updated: number
}

const toOrganization = (row: { id: string; name: string; created: number; updated: number }) => ({
  organizationID: row.id,
  name: row.name,
  created: row.created,
  updated: row.updated,
})

export class OrganizationsService {
  constructor(
    private readonly database: Database,
    private readonly repositories: Pick<Repositories, 'organizations' | 'topics'>,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
  ) {}

  /** Creates the organization with its default topic. */
  async create(actor: Actor, name: string): Promise<Organization> {
    const now = this.clock.now()
    const row = { id: this.database.ids.next(), name, created: now, updated: now }
    await this.database.transaction(async (trx) => {
      await this.repositories.organizations.insertOrganization(trx, row)
      await this.repositories.topics.insertTopic(trx, {
        organization_id: row.id,
        name: 'General',
        is_default: 1,
        created: now,
        updated: now,
      })
      await this.audit.record(actor, row.id, 'organization.create', { name }, trx)
    })
    return toOrganization(row)
  }

  /** Every organization, oldest first (for the operator, who may have lost an ID). */
  async list(): Promise<Organization[]> {
    return (await this.repositories.organizations.listOrganizations(this.database.db)).map(toOrganization)
  }

  /** How many open cases one visitor may have. */
  async maxOpenCases(organizationID: string): Promise<number> {
    const row = await this.repositories.organizations.findOrganization(this.database.db, organizationID)
    return row?.max_open_cases ?? 1
  }

  /** Throws notFound when there is no such organization. */
  async get(organizationID: string): Promise<Organization> {
    const row = await this.repositories.organizations.findOrganization(this.database.db, organizationID)
    if (!row) throw new AppError('notFound', `Organization ${organizationID} not found`)
    return toOrganization(row)
  }
}
