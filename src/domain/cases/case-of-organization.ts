import type { Repositories } from '../repositories.js'
import { type CaseRow, caseNotFound, type Trx } from './case-engine.js'

/**
 * The case, if it belongs to the organization. Another organization's case does not exist for its
 * agents, backend, chatbots or visitors: the same 404 `case not found` as an unknown caseID, so a
 * caseID never tells whether it exists elsewhere. With `lock`, locked as `findCase` locks it.
 */
export const caseOfOrganization = async (
  db: Trx,
  cases: Pick<Repositories['cases'], 'findCase'>,
  organizationID: string,
  caseID: string,
  { lock = false } = {},
): Promise<CaseRow> => {
  const row = await cases.findCase(db, caseID, { lock })
  if (!row || row.organization_id !== organizationID) throw caseNotFound()
  return row
}
