import type { Selectable } from 'kysely'
import { AppError } from '../../errors/app-error.js'
import { isUniqueViolation } from '../../errors/faults.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { CannedRepliesTable } from '../../storage/schema.js'
import type { AgentIdentity } from '../agents/agent.js'
import { type Actor, findForAdmin, requireAdminOf } from '../audit/actor.js'
import type { AuditLog } from '../audit/audit.js'
import { caseOfOrganization } from '../cases/case-of-organization.js'
import type { Repositories } from '../repositories.js'
import { renderPlaceholders } from './placeholders.js'

/** A saved answer of an organization, inserted in the reply box with its `/shortcut`. */
export interface CannedReply {
  cannedReplyID: string
  shortcut: string
  title: string
  /** As the admin wrote it, placeholders and all. */
  text: string
  /** The agentAccountID of the admin who created it ('' when made at the CLI). */
  createdBy: string
  created: number
  updated: number
}

/** A reply as listed: with its text filled in for a case, when a case was named. */
export interface ListedCannedReply extends CannedReply {
  rendered: string | null
}

export interface CannedReplyInput {
  shortcut: string
  title: string
  text: string
}

export interface CannedRepliesDependencies {
  database: Database
  clock: Clock
  audit: AuditLog
  repositories: Pick<Repositories, 'cannedReplies' | 'cases' | 'users' | 'agents'>
}

type Row = Selectable<CannedRepliesTable>

const toCannedReply = (row: Row): CannedReply => ({
  cannedReplyID: row.id,
  shortcut: row.shortcut,
  title: row.title,
  text: row.text,
  createdBy: row.created_by,
  created: Number(row.created),
  updated: Number(row.updated),
})

const shortcutTaken = (shortcut: string) =>
  new AppError('conflict', `Shortcut '/${shortcut}' is taken by another canned reply`, 'shortcut')

/** A filter's words as they match: lower case, without the `/` the reply box starts with. */
const normalQuery = (query: string | undefined) => (query ?? '').trim().toLowerCase().replace(/^\//, '')

/**
 * Canned replies (docs/reference/agent-api.md, "Canned replies"): every agent of an organization lists them, filled in
 * for a case's visitor and themselves; its admins (and the CLI) create, change and delete them,
 * each change in the audit log.
 */
export class CannedReplies {
  constructor(private readonly deps: CannedRepliesDependencies) {}

  /**
   * The organization's replies by shortcut, those whose shortcut starts with `query` first, then
   * those whose shortcut or title holds it; with `caseID`, each rendered for that case.
   */
  async list(
    agent: AgentIdentity,
    filter: { caseID?: string; query?: string },
  ): Promise<ListedCannedReply[]> {
    const { db } = this.deps.database
    const [rows, values] = await Promise.all([
      this.deps.repositories.cannedReplies.cannedRepliesOf(db, agent.organizationID),
      filter.caseID ? this.valuesFor(agent, filter.caseID) : undefined,
    ])
    const query = normalQuery(filter.query)
    const holds = (row: Row) => row.shortcut.includes(query) || row.title.toLowerCase().includes(query)
    const starting = rows.filter((row) => row.shortcut.startsWith(query))
    const others = rows.filter((row) => !row.shortcut.startsWith(query) && holds(row))
    return [...starting, ...others].map((row) => ({
      ...toCannedReply(row),
      rendered: values ? renderPlaceholders(row.text, values) : null,
    }))
  }

  async create(actor: Actor, organizationID: string, input: CannedReplyInput): Promise<CannedReply> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    const now = this.deps.clock.now()
    const id = this.deps.database.ids.next()
    const write = { actor, action: 'canned_reply.create', shortcut: input.shortcut }
    const row = await this.write(write, (trx) =>
      this.deps.repositories.cannedReplies.insertCannedReply(trx, {
        id,
        organization_id: organizationID,
        shortcut: input.shortcut,
        title: input.title,
        text: input.text,
        created_by: actor.kind === 'agent' ? actor.agentAccountID : '',
        created: now,
        updated: now,
      }),
    )
    return toCannedReply(row)
  }

  /** Changes what is given of shortcut, title and text. */
  async update(
    actor: Actor,
    cannedReplyID: string,
    changes: Partial<CannedReplyInput>,
  ): Promise<CannedReply> {
    const known = await this.find(actor, cannedReplyID)
    const fields = ['shortcut', 'title', 'text'] as const
    const given = Object.fromEntries(
      fields.filter((field) => changes[field] !== undefined).map((field) => [field, changes[field]]),
    )
    if (Object.keys(given).length === 0) return toCannedReply(known)
    const write = {
      actor,
      action: 'canned_reply.update',
      shortcut: changes.shortcut ?? known.shortcut,
      changed: Object.keys(given),
    }
    const row = await this.write(write, async (trx) => {
      const changed = { ...given, updated: this.deps.clock.now() }
      const updated = await this.deps.repositories.cannedReplies.updateCannedReply(trx, known.id, changed)
      if (!updated) throw notFound(cannedReplyID)
      return updated
    })
    return toCannedReply(row)
  }

  async delete(actor: Actor, cannedReplyID: string): Promise<void> {
    const known = await this.find(actor, cannedReplyID)
    const write = { actor, action: 'canned_reply.delete', shortcut: known.shortcut }
    await this.write(write, async (trx) => {
      await this.deps.repositories.cannedReplies.deleteCannedReply(trx, known.id)
      return known
    })
  }

  /** The reply, if the actor may change it: another organization's does not exist. */
  private find(actor: Actor, cannedReplyID: string): Promise<Row> {
    return findForAdmin(
      actor,
      `Canned reply ${cannedReplyID}`,
      () => this.deps.repositories.cannedReplies.findCannedReply(this.deps.database.db, cannedReplyID),
      (row) => row.organization_id,
    )
  }

  /**
   * Runs a change and writes it to the audit log, in one transaction; losing the organization's
   * shortcut index to another reply is a conflict.
   */
  private async write(
    change: { actor: Actor; action: string; shortcut: string; changed?: string[] },
    work: (trx: Database['db']) => Promise<Row>,
  ): Promise<Row> {
    try {
      return await this.deps.database.transaction(async (trx) => {
        const row = await work(trx)
        const { actor, action, changed } = change
        const detail = { cannedReplyID: row.id, shortcut: row.shortcut, ...(changed ? { changed } : {}) }
        await this.deps.audit.record(actor, row.organization_id, action, detail, trx)
        return row
      })
    } catch (error) {
      if (isUniqueViolation(error)) throw shortcutTaken(change.shortcut)
      throw error
    }
  }

  /** The case's visitor and the agent, as placeholders name them (another organization's case does not exist). */
  private async valuesFor(agent: AgentIdentity, caseID: string) {
    const { db } = this.deps.database
    const { cases, users, agents } = this.deps.repositories
    const row = await caseOfOrganization(db, cases, agent.organizationID, caseID)
    const [[visitor], [me]] = await Promise.all([
      users.findUsers(db, agent.organizationID, [row.user_id]),
      agents.agentNames(db, agent.organizationID, [agent.agentAccountID]),
    ])
    return {
      visitorName: visitor?.full_name ?? '',
      visitorEmail: visitor?.email ?? '',
      agentName: me?.name ?? '',
    }
  }
}

const notFound = (cannedReplyID: string) =>
  new AppError('notFound', `Canned reply ${cannedReplyID} not found`)
