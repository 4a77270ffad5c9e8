import type { Kysely } from 'kysely'
import type { Clock } from '../../lib/clock.js'
import { newID } from '../../lib/ids.js'
import type { Database } from '../../storage/database.js'
import type { Schema } from '../../storage/schema.js'

/** One admin action: who, what, when, and its non-secret details. */
export interface AuditEntry {
  auditID: string
  agentAccountID: string
  action: string
  detail: Record<string, unknown>
  created: number
}

const listEntries = (db: Kysely<Schema>, organizationID: string, limit: number) =>
  db
    .selectFrom('audit_log')
    .selectAll()
    .where('organization_id', '=', organizationID)
    .orderBy('created', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()

/** The audit log of admin actions, per organization. Details never hold a secret. */
export class AuditLog {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  async record(
    actor: { organizationID: string; agentAccountID: string },
    action: string,
    detail: Record<string, unknown>,
  ) {
    await this.database.db
      .insertInto('audit_log')
      .values({
        id: newID(),
        organization_id: actor.organizationID,
        agent_account_id: actor.agentAccountID,
        action,
        detail: JSON.stringify(detail),
        created: this.clock.now(),
      })
      .execute()
  }

  async list(organizationID: string, limit: number): Promise<AuditEntry[]> {
    return (await listEntries(this.database.db, organizationID, limit)).map((row) => ({
      auditID: row.id,
      agentAccountID: row.agent_account_id,
      action: row.action,
      detail: JSON.parse(row.detail) as Record<string, unknown>,
      created: row.created,
    }))
  }
}
