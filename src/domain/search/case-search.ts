import type { Selectable } from 'kysely'
import { asciiLower, excerpt, queryWords } from '../../lib/search-words.js'
import type { Database } from '../../storage/database.js'
import type { CasesTable } from '../../storage/schema.js'
import type { AgentIdentity } from '../agents/agent.js'
import type { CaseStatus, TaggedCase } from '../cases/case.js'
import type { CaseRows } from '../cases/case-rows.js'
import { normalizeTags } from '../cases/case-tags.js'
import type { CaseMatch } from '../cases/cases.repository.js'
import type { Senders } from '../messages/senders.js'
import type { Repositories } from '../repositories.js'

/** A message of a case that holds the words looked for: a piece of it, who said it, when. */
export interface Snippet {
  messageID: string
  /** The piece of the message around the first word looked for. */
  text: string
  /** A userID (the visitor), `agent:<agentAccountID>` or `chatbot:<chatbotID>`. */
  senderID: string
  senderName: string
  created: number
}

/** A case found, with its newest message holding the words (null when found by visitor or ID, or by filters alone). */
export interface CaseHit extends TaggedCase {
  snippet: Snippet | null
}

export interface CaseSearch {
  /** Words said in the case, or (all of it) part of the visitor's name, e-mail or xcUserID, or the case ID. */
  query?: string
  status?: CaseStatus
  topicID?: number
  agentAccountID?: string
  /** Only cases having every one of these tags (normalised). */
  tags?: readonly string[]
  /** Created at or after / at or before (epoch ms). */
  from?: number
  to?: number
  before?: { created: number; caseID: string }
  limit: number
}

/**
 * Up to this many matching messages, the rooms they are in are looked up at once; a word said more
 * often than that is looked for case by case, newest first, a batch of cases at a time (the first
 * of CASES_PER_BATCH, each next one twice as large, up to 16 times).
 */
const MATCHES_AT_ONCE = 2000
const CASES_PER_BATCH = 50

type CaseRow = Selectable<CasesTable>
type Filters = Omit<Parameters<Repositories['cases']['listCases']>[1], 'anyOf' | 'limit'>

const newestFirst = (a: CaseRow, b: CaseRow) =>
  b.created - a.created || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/**
 * Searching an organization's cases (docs/reference/agent-api.md, "Searching cases"): by words said in their messages
 * (the full-text index of search.repository.ts), by visitor, by case ID, narrowed by filters;
 * newest case first on both databases.
 */
export class CaseSearcher {
  constructor(
    private readonly deps: {
      database: Database
      repositories: Pick<Repositories, 'cases' | 'search' | 'messages'>
      /** Cases as agents see them (with tags). */
      rows: Pick<CaseRows, 'tagged'>
      senders: Senders
      /** MATCHES_AT_ONCE and CASES_PER_BATCH unless given (tests make them small). */
      tuning?: { matchesAtOnce: number; casesPerBatch: number }
    },
  ) {}

  async search(agent: AgentIdentity, input: CaseSearch): Promise<{ cases: CaseHit[]; hasMore: boolean }> {
    const filters: Filters = {
      organizationID: agent.organizationID,
      ...(input.status ? { status: input.status } : {}),
      ...(input.topicID ? { topicID: input.topicID } : {}),
      ...(input.agentAccountID ? { agentAccountID: input.agentAccountID } : {}),
      ...(input.tags?.length ? { tags: normalizeTags(input.tags, 'tags', false) } : {}),
      ...(input.from !== undefined ? { from: input.from } : {}),
      ...(input.to !== undefined ? { to: input.to } : {}),
      ...(input.before ? { before: input.before } : {}),
    }
    const wanted = input.limit + 1
    const text = (input.query ?? '').trim()
    const words = queryWords(text)
    const rows = text
      ? merge(
          await this.byVisitorOrID(filters, text, wanted),
          words.length > 0 ? await this.byWords(filters, words, wanted) : [],
          wanted,
        )
      : await this.cases(filters, undefined, wanted)
    const page = rows.slice(0, input.limit)
    return {
      cases: await this.withSnippets(agent.organizationID, page, words),
      hasMore: rows.length > input.limit,
    }
  }

  private cases(filters: Filters, anyOf: CaseMatch | undefined, limit: number) {
    return this.deps.repositories.cases.listCases(this.deps.database.db, {
      ...filters,
      ...(anyOf ? { anyOf } : {}),
      limit,
    })
  }

  private byVisitorOrID(filters: Filters, text: string, wanted: number) {
    const caseID = /^[0-9a-f]{10}$/i.test(text) ? text.toUpperCase() : undefined
    return this.cases(filters, { visitorText: asciiLower(text), ...(caseID ? { caseID } : {}) }, wanted)
  }

  /** The newest cases with a message holding every one of the words. */
  private async byWords(filters: Filters, words: string[], wanted: number): Promise<CaseRow[]> {
    const { db } = this.deps.database
    const { search } = this.deps.repositories
    const { matchesAtOnce, casesPerBatch } = this.deps.tuning ?? {
      matchesAtOnce: MATCHES_AT_ONCE,
      casesPerBatch: CASES_PER_BATCH,
    }
    const matches = await search.roomsOfMatches(db, words, matchesAtOnce)
    if (matches.complete)
      return matches.roomIDs.length === 0 ? [] : this.cases(filters, { roomIDs: matches.roomIDs }, wanted)
    // Said often: most recent cases hold it, so go through the cases newest first.
    const found: CaseRow[] = []
    let before = filters.before
    // Small batches first (a frequent word is in most cases), larger ones while it is not found.
    for (let size = casesPerBatch; ; size = Math.min(size * 2, casesPerBatch * 16)) {
      const batch = await this.cases({ ...filters, ...(before ? { before } : {}) }, undefined, size)
      const holding = await search.newestMatches(
        db,
        batch.map((row) => row.room_id),
        words,
      )
      found.push(...batch.filter((row) => holding.has(row.room_id)))
      const last = batch.at(-1)
      if (found.length >= wanted || batch.length < size || !last) return found.slice(0, wanted)
      before = { created: last.created, caseID: last.id }
    }
  }

  private async withSnippets(organizationID: string, rows: CaseRow[], words: string[]): Promise<CaseHit[]> {
    const { db } = this.deps.database
    const newest =
      words.length > 0
        ? await this.deps.repositories.search.newestMatches(
            db,
            rows.map((row) => row.room_id),
            words,
          )
        : new Map<string, string>()
    const messages = await this.deps.repositories.messages.findMessages(db, [...newest.values()])
    const senders = await this.deps.senders.of(
      organizationID,
      messages.map((m) => m.sender_id),
    )
    const byID = new Map(messages.map((m) => [m.id, m]))
    const tagged = await this.deps.rows.tagged(rows)
    return rows.map((row, i) => {
      const message = byID.get(newest.get(row.room_id) ?? '')
      return {
        ...(tagged[i] as TaggedCase),
        snippet: message
          ? {
              messageID: message.id,
              text: excerpt(message.body, words),
              senderID: message.sender_id,
              senderName: senders.get(message.sender_id)?.fullname ?? '',
              created: message.created,
            }
          : null,
      }
    })
  }
}

/** The first `limit` of two lists, each newest first, without repeats. */
function merge(a: CaseRow[], b: CaseRow[], limit: number): CaseRow[] {
  const byID = new Map([...a, ...b].map((row) => [row.id, row]))
  return [...byID.values()].sort(newestFirst).slice(0, limit)
}
