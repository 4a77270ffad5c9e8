import type { Kysely } from 'kysely'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { Schema } from '../../storage/schema.js'
import { type Actor, actorName, requireAdminOf } from './actor.js'

/** One change to an organization's settings: who, what, when, and its non-secret details. */
export interface AuditEntry {
  auditID: string
  /** The admin who made it; '' when it was made at the CLI. */
  agentAccountID: string
  /** Who made it: `agent:<agentAccountID>`, `cli:<OS user>` or `server_key:<serverKeyID>`. */
  actor: string
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

/**
 * The audit log, per organization. The service that makes a change records it (in the change's
 * transaction where it has one), so changes are audited whatever made them. Details never hold a
 * secret.
 */
export class AuditLog {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /** A change Parley made by itself (an event endpoint disabled): actor `system`. */
  recordSystem(
    organizationID: string,
    action: string,
    detail: Record<string, unknown>,
    db: Kysely<Schema> = this.database.db,
  ): Promise<void> {
    return this.insert(db, organizationID, { agentAccountID: '', actor: 'system' }, action, detail)
  }

  record(
    actor: Actor,
    organizationID: string,
    action: string,
    detail: Record<string, unknown>,
    db: Kysely<Schema> = this.database.db,
  ): Promise<void> {
    const agentAccountID = actor.kind === 'agent' ? actor.agentAccountID : ''
    return this.insert(db, organizationID, { agentAccountID, actor: actorName(actor) }, action, detail)
  }

  private async insert(
    db: Kysely<Schema>,
    organizationID: string,
    by: { agentAccountID: string; actor: string },
    action: string,
    detail: Record<string, unknown>,
  ): Promise<void> {
    await db
      .insertInto('audit_log')
      .values({
        id: this.database.ids.next(),
        organization_id: organizationID,
        agent_account_id: by.agentAccountID,
        actor: by.actor,
        action,
        detail: JSON.stringify(detail),
        created: this.clock.now(),
      })
      .execute()
  }

  /** The organization's latest entries, newest first: for its admins and the CLI. */
  async list(actor: Actor, organizationID: string, limit: number): Promise<AuditEntry[]> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    return (await listEntries(this.database.db, organizationID, limit)).map((row) => ({
      auditID: row.id,
      agentAccountID: row.agent_account_id,
      actor: row.actor,
      action: row.action,
      detail: JSON.parse(row.detail) as Record<string, unknown>,
      created: row.created,
    }))
  }
}
