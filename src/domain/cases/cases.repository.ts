import type { Insertable, Kysely, Updateable } from 'kysely'
import type { Dialect } from '../../storage/database.js'
import { prepareQuery } from '../../storage/prepared.js'
import type { CasesTable, Schema } from '../../storage/schema.js'
import type { CaseStatus } from './case.js'

export const insertCase = (db: Kysely<Schema>, row: Insertable<CasesTable>) =>
  db.insertInto('cases').values(row).execute()

const caseByID = prepareQuery(
  (db, args: { id: string; lock: boolean }, shape, dialect) =>
    db
      .selectFrom('cases')
      .selectAll()
      .where('id', '=', args.id)
      .$if(shape === 'lock' && dialect === 'postgres', (q) => q.forUpdate()),
  (args) => (args.lock ? 'lock' : ''),
)

/**
 * The case; with `lock`, locked on PostgreSQL for the rest of the transaction, so a case's events
 * run one at a time across instances (SQLite has one writer anyway).
 */
export const findCase = async (db: Kysely<Schema>, id: string, { lock = false } = {}) =>
  (await caseByID.run(db, { id, lock }))[0]

export const listCasesOfUser = (db: Kysely<Schema>, userID: string) =>
  db
    .selectFrom('cases')
    .selectAll()
    .where('user_id', '=', userID)
    .orderBy('created', 'desc')
    .orderBy('id')
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

/** An organization's cases, newest first, narrowed by status, topic or agent. */
export const listCases = (
  db: Kysely<Schema>,
  filter: {
    organizationID: string
    status?: string
    topicID?: number
    agentAccountID?: string
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
    .$if(filter.topicID !== undefined, (q) => q.where('topic_id', '=', filter.topicID as number))
    .$if(filter.agentAccountID !== undefined, (q) =>
      q.where('agent_account_id', '=', filter.agentAccountID as string),
    )
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
