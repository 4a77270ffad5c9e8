import { AppError } from '../../errors/app-error.js'
import type { Database } from '../../storage/database.js'
import type { AgentIdentity } from '../agents/agent.js'
import type { OrganizationsService } from '../organizations/organizations.service.js'
import type { Repositories } from '../repositories.js'
import { reopenableUntil, type TaggedCase } from './case.js'
import type { CaseEngine, CaseRow } from './case-engine.js'
import { caseOfOrganization } from './case-of-organization.js'
import type { CaseRows } from './case-rows.js'

/** CASE_REOPEN_WINDOW_HOURS unless configured: a closed case can be reopened for three days. */
export const DEFAULT_REOPEN_WINDOW_HOURS = 72

/**
 * Reopening a closed case (docs/reference/agent-api.md): instead of making the visitor start over,
 * an agent of the organization reopens it within the window after it closed, and it is theirs
 * (`closed` → `assigned`, as `case/take` gives a case: their own act, whatever their status).
 */
export class CaseReopening {
  constructor(
    private readonly deps: {
      database: Database
      engine: CaseEngine
      rows: CaseRows
      organizations: OrganizationsService
      repositories: Pick<Repositories, 'cases' | 'agents' | 'users'>
      /** How long after closing a case can be reopened, in hours; 0: never. */
      reopenWindowHours: number
    },
  ) {}

  /**
   * Of agents reopening one case at once, exactly one wins (the case is locked, and moved only
   * from `closed`); the rest get 409 `case is not closed`. Refused past the window, and while the
   * visitor has as many other open cases as the organization allows (`maxOpenCases`), and for a
   * visitor who was deleted: no one writes to them again.
   */
  async reopen(agent: AgentIdentity, caseID: string): Promise<TaggedCase> {
    const { cases, agents, users } = this.deps.repositories
    const hours = this.deps.reopenWindowHours
    // Read before the transaction (which may use only its own connection).
    const maxOpen = await this.deps.organizations.maxOpenCases(agent.organizationID)
    const { outcome } = await this.deps.engine.change(caseID, async (trx, now) => {
      const row = await caseOfOrganization(trx, cases, agent.organizationID, caseID, { lock: true })
      if (row.status !== 'closed') throw new AppError('conflict', 'case is not closed')
      if (hours === 0) throw new AppError('conflict', 'reopening cases is turned off')
      if (now > (reopenableUntil(row, hours) ?? 0))
        throw new AppError('conflict', `the case closed more than ${hours} hours ago and cannot be reopened`)
      // The visitor's open-case limit holds against their own case/create at the same time.
      await cases.lockVisitor(trx, row.user_id, this.deps.database.dialect)
      const [visitor] = await users.findUsers(trx, row.organization_id, [row.user_id])
      if (!visitor || visitor.deleted_at !== null) throw new AppError('conflict', 'the visitor was deleted')
      if ((await cases.countOpenCases(trx, row.organization_id, row.user_id)) >= maxOpen)
        throw new AppError('conflict', 'the visitor has another open case')
      if (!(await agents.markAssigned(trx, agent.agentAccountID, now)))
        throw new AppError('conflict', 'the agent is deactivated')
      return this.deps.engine.transition(trx, row, 'assigned', now, {
        changes: { agent_account_id: agent.agentAccountID, closed_time: null, closed_by: null },
        action: 'case/reopen',
        text: 'The case was reopened',
      })
    })
    return (await this.deps.rows.tagged([outcome.row as CaseRow]))[0] as TaggedCase
  }
}
