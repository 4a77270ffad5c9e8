import type { Database } from '../../storage/database.js'
import type { Repositories } from '../repositories.js'
import { type Case, type CaseStatus, toCase } from './case.js'
import type { CaseEngine, CaseRow, Trx } from './case-engine.js'
import { caseOfOrganization } from './case-of-organization.js'
import type { VisitorCases } from './visitor-cases.js'

export interface ServerCasesDependencies {
  database: Database
  engine: CaseEngine
  visitorCases: VisitorCases
  repositories: Pick<Repositories, 'cases'>
}

/** A page of cases, newest first; `hasMore` when older ones follow. */
export interface CasePage {
  cases: Case[]
  hasMore: boolean
}

/**
 * The customer's backend and its organization's cases (server API): it opens a case on a visitor's
 * behalf (from a contact form, say), reads and closes any case of its organization. Another
 * organization's cases do not exist for it.
 */
export class ServerCases {
  constructor(private readonly deps: ServerCasesDependencies) {}

  /** A case opened for the visitor as if they had opened it (the same rules: chatbot, queue, limit). */
  create(organizationID: string, userID: string, input: { topicID?: number | undefined; message: string }) {
    // No session of the visitor's made it: nothing to leave out of the announcement.
    return this.deps.visitorCases.create({ organizationID, userID, sessionID: '' }, input)
  }

  async get(organizationID: string, caseID: string): Promise<Case> {
    return toCase(await this.find(this.deps.database.db, organizationID, caseID))
  }

  /** The organization's cases (or one visitor's), newest first, older than `before` (a caseID). */
  async list(
    organizationID: string,
    filter: {
      userID?: string | undefined
      status?: CaseStatus | undefined
      before?: string | undefined
      limit: number
    },
  ): Promise<CasePage> {
    const { database, repositories } = this.deps
    const after = filter.before ? await this.find(database.db, organizationID, filter.before) : undefined
    const rows = await repositories.cases.listCases(database.db, {
      organizationID,
      ...(filter.userID ? { userID: filter.userID } : {}),
      ...(filter.status ? { status: filter.status } : {}),
      ...(after ? { before: { created: after.created, caseID: after.id } } : {}),
      limit: filter.limit + 1,
    })
    return { cases: rows.slice(0, filter.limit).map(toCase), hasMore: rows.length > filter.limit }
  }

  /** Closes the case (closedBy `system`); closing a closed case changes nothing. */
  async close(organizationID: string, caseID: string): Promise<Case> {
    const { outcome } = await this.deps.engine.change(caseID, async (trx, now) => {
      const row = await this.find(trx, organizationID, caseID, { lock: true })
      return this.deps.engine.close(trx, row, 'system', now)
    })
    return toCase(outcome.row as CaseRow)
  }

  /** Closes every open case of the visitor (their deletion); how many were open. */
  async closeAllOf(organizationID: string, userID: string): Promise<number> {
    const rows = await this.deps.repositories.cases.listCasesOfUser(this.deps.database.db, userID)
    const open = rows.filter((row) => row.organization_id === organizationID && row.status !== 'closed')
    for (const row of open) await this.close(organizationID, row.id)
    return open.length
  }

  /** Blanks the texts the visitor's cases keep of them (first message, handover summary): erasure. */
  async eraseTextsOf(organizationID: string, userID: string): Promise<void> {
    await this.deps.repositories.cases.eraseCaseTextsOfUser(this.deps.database.db, organizationID, userID)
  }

  /** Every case of the visitor, newest first (their data export). */
  async casesOf(organizationID: string, userID: string): Promise<Case[]> {
    const rows = await this.deps.repositories.cases.listCasesOfUser(this.deps.database.db, userID)
    return rows.filter((row) => row.organization_id === organizationID).map(toCase)
  }

  private find(db: Trx, organizationID: string, caseID: string, options?: { lock: boolean }) {
    return caseOfOrganization(db, this.deps.repositories.cases, organizationID, caseID, options)
  }
}
