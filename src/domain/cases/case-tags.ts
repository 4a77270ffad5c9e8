import { paramError } from '../../errors/app-error.js'
import type { Database } from '../../storage/database.js'
import type { AgentIdentity } from '../agents/agent.js'
import type { Repositories } from '../repositories.js'
import { type CaseEngine, type CaseRow, unchanged } from './case-engine.js'
import { caseOfOrganization } from './case-of-organization.js'
import type { AgentCase, CaseRows } from './case-rows.js'

/** At most this many tags on a case, each of 1 to TAG_CHARACTERS characters. */
export const MAX_TAGS = 10
export const TAG_CHARACTERS = 32

/** Control characters (C0, DEL, C1) have no place in a label. */
const CONTROL = /\p{Cc}/u

/**
 * Tags as stored and compared: trimmed, inner runs of white space made one space, lower case (so
 * `VIP` and `vip` are one tag), without repeats, alphabetical. Refuses (400/40002 on `field`) an
 * empty tag, one over 32 characters or holding a control character, and more than 10.
 */
export function normalizeTags(tags: readonly string[], field = 'tags', limited = true): string[] {
  const normal = new Set<string>()
  for (const tag of tags) {
    const text = tag.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase()
    if (text === '') throw paramError(field, 'must not hold an empty tag')
    if ([...text].length > TAG_CHARACTERS)
      throw paramError(field, `must hold tags of at most ${TAG_CHARACTERS} characters`)
    if (CONTROL.test(text)) throw paramError(field, 'is invalid')
    normal.add(text)
  }
  if (limited && normal.size > MAX_TAGS) throw paramError(field, `must have at most ${MAX_TAGS} tags`)
  return [...normal].sort()
}

/** A tag in use in an organization, and on how many of its cases. */
export interface TagCount {
  tag: string
  cases: number
}

/**
 * An organization's labels on its cases (docs/reference/agent-api.md): any agent of the
 * organization sets a case's tags; visitors never see them.
 */
export class CaseTags {
  constructor(
    private readonly deps: {
      database: Database
      engine: CaseEngine
      rows: CaseRows
      repositories: Pick<Repositories, 'cases' | 'tags'>
    },
  ) {}

  /** The case's tags become these (a replacement); the agents following the case hear of it. */
  async set(agent: AgentIdentity, caseID: string, tags: readonly string[]): Promise<AgentCase> {
    const wanted = normalizeTags(tags)
    const { cases, tags: stored } = this.deps.repositories
    const { outcome } = await this.deps.engine.change(caseID, async (trx) => {
      const row = await caseOfOrganization(trx, cases, agent.organizationID, caseID, { lock: true })
      const before = (await stored.tagsOfCases(trx, [caseID])).map(({ tag }) => tag)
      if (before.join('\n') === wanted.join('\n')) return unchanged(row)
      await stored.replaceTags(trx, { caseID, organizationID: row.organization_id }, wanted)
      return { row, messages: [], changed: true, agentsOnly: true }
    })
    const [described] = await this.deps.rows.describe(agent.organizationID, [outcome.row as CaseRow])
    return described as AgentCase
  }

  /** The organization's tags in use, the most used first. */
  async list(agent: AgentIdentity): Promise<TagCount[]> {
    const counts = await this.deps.repositories.tags.tagCounts(this.deps.database.db, agent.organizationID)
    return counts.map(({ tag, cases }) => ({ tag, cases: Number(cases) }))
  }
}
