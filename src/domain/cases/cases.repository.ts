import {
  type Expression,
  type ExpressionBuilder,
  type Insertable,
  type Kysely,
  type SqlBool,
  sql,
  type Updateable,
} from 'kysely'
import { dialectOf, prepareQuery } from '../../storage/prepared.js'
import type { CasesTable, Dialect, Schema } from '../../storage/schema.js'
import type { CaseStatus } from './case.js'

export const insertCase = (db: Kysely<Schema>, row: Insertable<CasesTable>) =>
  db.insertInto('cases').values(row).execute()

const caseByID = prepareQuery(
  'cases.caseByID',
  (db, args: { id: string; lock: boolean }, shape, dialect) =>
    db
      .selectFrom('cases')
      .selectAll()
      .where('id', '=', args.id)
      .$if(shape === 'lock' && dialect === 'postgres', (q) => q.forUpdate()),
  { shapeOf: (args) => (args.lock ? 'lock' : ''), shapes: ['', 'lock'] },
)

/**
 * The case; with `lock`, locked on PostgreSQL for the rest of the transaction, so a case's events
 * run one at a time across instances (SQLite has one writer anyway).
 */
export const findCase = async (db: Kysely<Schema>, id: string, { lock = false } = {}) =>
  (await caseByID.run(db, { id, lock }))[0]

/** The case whose messages a room holds (undefined for other rooms). */
export const findCaseByRoom = (db: Kysely<Schema>, roomID: string) =>
  db.selectFrom('cases').selectAll().where('room_id', '=', roomID).executeTakeFirst()

export const listCasesOfUser = (db: Kysely<Schema>, userID: string) =>
  db
    .selectFrom('cases')
    .selectAll()
    .where('user_id', '=', userID)
    .orderBy('created', 'desc')
    .orderBy('id')
    .execute()

/** A visitor's cases in the organization, newest first, at most `limit`. */
export const casesOfVisitor = (db: Kysely<Schema>, organizationID: string, userID: string, limit: number) =>
  db
    .selectFrom('cases')
    .selectAll()
    .where('user_id', '=', userID)
    .where('organization_id', '=', organizationID)
    .orderBy('created', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()

export async function countOpenCases(
  db: Kysely<Schema>,
  organizationID: string,
  userID: string,
): Promise<number> {
  const row = await db
    .selectFrom('cases')
    .select((eb) => eb.fn.countAll<number>().as('open'))
    .where('organization_id', '=', organizationID)
    .where('user_id', '=', userID)
    .where('status', '<>', 'closed')
    .executeTakeFirstOrThrow()
  return Number(row.open)
}

/**
 * Serialises a visitor's case creations on PostgreSQL (a row lock on the user), so the
 * open-case limit holds under concurrent requests. SQLite has one writer anyway.
 */
export async function lockVisitor(db: Kysely<Schema>, userID: string, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres')
    await db.selectFrom('users').select('id').where('id', '=', userID).forUpdate().execute()
}

/** Moves the case from `from` (only) with `changes`; undefined when it was no longer in `from`. */
export const moveCase = (db: Kysely<Schema>, id: string, from: CaseStatus, changes: Updateable<CasesTable>) =>
  db
    .updateTable('cases')
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', from)
    .returningAll()
    .executeTakeFirst()

/** Records an agent's first message in the case (docs/reference/agent-api.md, "Reports"): only the first one counts. */
export const markFirstResponse = (db: Kysely<Schema>, id: string, at: number) =>
  db
    .updateTable('cases')
    .set({ first_response_at: at })
    .where('id', '=', id)
    .where('first_response_at', 'is', null)
    .execute()

/** Rates a closed case (only): a new rating replaces the earlier one. Undefined when it is not closed. */
export const rateCase = (
  db: Kysely<Schema>,
  id: string,
  rating: { rating: number; note: string; now: number },
) =>
  db
    .updateTable('cases')
    .set({ rating: rating.rating, rating_note: rating.note, rated_at: rating.now, updated: rating.now })
    .where('id', '=', id)
    .where('status', '=', 'closed')
    .returningAll()
    .executeTakeFirst()

export const botCasesOf = (db: Kysely<Schema>, chatbotIDs: readonly string[]) =>
  chatbotIDs.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('cases')
        .select('id')
        .where('chatbot_id', 'in', chatbotIDs)
        .where('status', '=', 'bot')
        .execute()

export const assignedCasesOf = (db: Kysely<Schema>, agentAccountID: string) =>
  db
    .selectFrom('cases')
    .select('id')
    .where('agent_account_id', '=', agentAccountID)
    .where('status', '=', 'assigned')
    .execute()

/** What a search matches a case by: any one of these (see listCases' `anyOf`). */
export interface CaseMatch {
  /** The case's room is one of these (rooms of messages holding the words). */
  roomIDs?: readonly string[]
  /** Its visitor's name, e-mail or xcUserID holds this (ASCII letters in any case). */
  visitorText?: string
  /** The case's ID. */
  caseID?: string
}

/** LIKE's wildcards and escape character taken literally. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * An organization's cases, newest first, narrowed by status, topic, agent, creation time, and what
 * they match (`anyOf`: at least one of its conditions; none at all when it has none).
 */
export const listCases = (
  db: Kysely<Schema>,
  filter: {
    organizationID: string
    status?: string
    /** Only this visitor's cases. */
    userID?: string
    topicID?: number
    agentAccountID?: string
    /** Created at or after / at or before (epoch ms). */
    from?: number
    to?: number
    anyOf?: CaseMatch
    /** Only cases having every one of these tags (normalised: lower case). */
    tags?: readonly string[]
    /** Paging: the last case of the previous page; only cases older than it come. */
    before?: { created: number; caseID: string }
    limit: number
  },
) =>
  db
    .selectFrom('cases')
    .selectAll()
    .where('organization_id', '=', filter.organizationID)
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status as string))
    .$if(filter.userID !== undefined, (q) => q.where('user_id', '=', filter.userID as string))
    .$if(filter.topicID !== undefined, (q) => q.where('topic_id', '=', filter.topicID as number))
    .$if(filter.agentAccountID !== undefined, (q) =>
      q.where('agent_account_id', '=', filter.agentAccountID as string),
    )
    .$if(filter.from !== undefined, (q) => q.where('created', '>=', filter.from as number))
    .$if(filter.to !== undefined, (q) => q.where('created', '<=', filter.to as number))
    .$if(filter.anyOf !== undefined, (q) =>
      q.where((eb) => matching(eb, dialectOf(db), filter.organizationID, filter.anyOf ?? {})),
    )
    .$if((filter.tags?.length ?? 0) > 0, (q) => {
      const tags = filter.tags as readonly string[]
      return q.where('id', 'in', (eb) =>
        eb
          .selectFrom('case_tags')
          .select('case_id')
          .where('organization_id', '=', filter.organizationID)
          .where('tag', 'in', tags)
          .groupBy('case_id')
          .having((h) => h.fn.countAll(), '=', tags.length),
      )
    })
    .$if(filter.before !== undefined, (q) => {
      const { created, caseID } = filter.before as { created: number; caseID: string }
      // (created, id) is unique, so pages neither overlap nor skip cases of the same millisecond.
      return q.where((eb) =>
        eb.or([eb('created', '<', created), eb.and([eb('created', '=', created), eb('id', '<', caseID)])]),
      )
    })
    .orderBy('created', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit)
    .execute()

function matching(
  eb: ExpressionBuilder<Schema, 'cases'>,
  dialect: Dialect,
  organizationID: string,
  match: CaseMatch,
) {
  const any: Expression<SqlBool>[] = []
  if (match.roomIDs && match.roomIDs.length > 0) any.push(eb('room_id', 'in', match.roomIDs))
  if (match.caseID) any.push(eb('id', '=', match.caseID))
  if (match.visitorText) {
    // Both databases fold ASCII letters only (SQLite's lower() does no more; PostgreSQL's under the
    // "C" collation neither), so they agree.
    const pattern = `%${likeLiteral(match.visitorText)}%`
    const folded = (column: 'full_name' | 'email' | 'xc_user_id') =>
      dialect === 'sqlite'
        ? sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`
        : sql<SqlBool>`lower(${sql.ref(column)} collate "C") like ${pattern} escape '\\'`
    any.push(
      eb(
        'user_id',
        'in',
        eb
          .selectFrom('users')
          .select('id')
          .where('organization_id', '=', organizationID)
          .where((u) => u.or([folded('full_name'), folded('email'), folded('xc_user_id')])),
      ),
    )
  }
  return eb.or(any)
}

/** The oldest case waiting in any of these topics. */
export const oldestQueued = (db: Kysely<Schema>, organizationID: string, topicIDs: readonly number[]) =>
  topicIDs.length === 0
    ? Promise.resolve(undefined)
    : db
        .selectFrom('cases')
        .select('id')
        .where('organization_id', '=', organizationID)
        .where('status', '=', 'queued')
        .where('topic_id', 'in', topicIDs)
        .orderBy('updated')
        .orderBy('id')
        .executeTakeFirst()

/**
 * Blanks what the visitor's cases quote of them (the first message, the chatbot's summary) and the
 * note of their ratings (a rating given stays, with '' for its note): erasure.
 */
export const eraseCaseTextsOfUser = (db: Kysely<Schema>, organizationID: string, userID: string) =>
  db
    .updateTable('cases')
    .set((eb) => ({
      first_message: '',
      handover_summary: '',
      rating_note: eb.case().when('rating_note', 'is', null).then(null).else('').end(),
    }))
    .where('organization_id', '=', organizationID)
    .where('user_id', '=', userID)
    .execute()
