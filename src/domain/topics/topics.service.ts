import type { Selectable } from 'kysely'
import { AppError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { TopicsTable } from '../../storage/schema.js'
import { type Actor, requireAdminOf } from '../audit/actor.js'
import type { AuditLog } from '../audit/audit.js'
import type { OrganizationsService } from '../organizations/organizations.service.js'
import type { Repositories } from '../repositories.js'

/** A topic: a queue of cases with its agents. Each organization has a default one. */
export interface Topic {
  topicID: number
  name: string
  isDefault: boolean
}

const toTopic = (row: Selectable<TopicsTable>): Topic => ({
  topicID: row.id,
  name: row.name,
  isDefault: row.is_default === 1,
})

export class TopicsService {
  constructor(
    private readonly database: Database,
    private readonly repositories: Pick<Repositories, 'topics'>,
    private readonly clock: Clock,
    private readonly organizations: OrganizationsService,
    private readonly audit: AuditLog,
  ) {}

  async create(actor: Actor, organizationID: string, name: string): Promise<Topic> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    await this.organizations.get(organizationID)
    const now = this.clock.now()
    const topic = await this.database.transaction(async (trx) => {
      const row = await this.repositories.topics.insertTopic(trx, {
        organization_id: organizationID,
        name,
        is_default: 0,
        created: now,
        updated: now,
      })
      await this.audit.record(actor, organizationID, 'topic.create', { topicID: row.id, name }, trx)
      return toTopic(row)
    })
    return topic
  }

  async list(organizationID: string): Promise<Topic[]> {
    return (await this.repositories.topics.listTopics(this.database.db, organizationID)).map(toTopic)
  }

  /** The topic, or the organization's default one when `topicID` is absent or 0. */
  async resolve(organizationID: string, topicID: number | undefined): Promise<Topic> {
    const row = topicID
      ? await this.repositories.topics.findTopic(this.database.db, organizationID, topicID)
      : await this.repositories.topics.findDefaultTopic(this.database.db, organizationID)
    if (!row) throw new AppError('notFound', `Topic ${topicID} not found`)
    return toTopic(row)
  }
}
