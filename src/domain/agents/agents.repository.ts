import type { Insertable, Kysely, Updateable } from 'kysely'
import type { AgentAccountsTable, AgentSessionsTable, Dialect, Schema } from '../../storage/schema.js'

export const insertAgent = (db: Kysely<Schema>, row: Insertable<AgentAccountsTable>) =>
  db.insertInto('agent_accounts').values(row).execute()

export const setAgentTopics = async (
  db: Kysely<Schema>,
  agentAccountID: string,
  topicIDs: readonly number[],
) => {
  await db.deleteFrom('agent_topics').where('agent_account_id', '=', agentAccountID).execute()
  if (topicIDs.length > 0) {
    await db
      .insertInto('agent_topics')
      .values(topicIDs.map((topicID) => ({ agent_account_id: agentAccountID, topic_id: topicID })))
      .execute()
  }
}

/** The account; with `lock` (PostgreSQL) its row is locked for the rest of the transaction. */
export const findAgent = (db: Kysely<Schema>, id: string, { lock = false } = {}) =>
  db
    .selectFrom('agent_accounts')
    .selectAll()
    .where('id', '=', id)
    .$if(lock, (q) => q.forUpdate())
    .executeTakeFirst()

/** The display names of agents of the organization (who sent which message). */
export const agentNames = (db: Kysely<Schema>, organizationID: string, ids: readonly string[]) =>
  db
    .selectFrom('agent_accounts')
    .select(['id', 'full_name as name'])
    .where('organization_id', '=', organizationID)
    .where('id', 'in', ids)
    .execute()

export const listAgents = (db: Kysely<Schema>, organizationID: string) =>
  db
    .selectFrom('agent_accounts')
    .selectAll()
    .where('organization_id', '=', organizationID)
    // Oldest first: by time, as IDs of the two formats do not sort by it (lib/ids.ts).
    .orderBy('created')
    .orderBy('id')
    .execute()

/**
 * The organization's active admins, locked on PostgreSQL for the rest of the transaction (SQLite
 * runs one write transaction at a time).
 */
export const lockActiveAdmins = async (db: Kysely<Schema>, organizationID: string, dialect: Dialect) =>
  (
    await db
      .selectFrom('agent_accounts')
      .select('id')
      .where('organization_id', '=', organizationID)
      .where('role', '=', 'admin')
      .where('deactivated_at', 'is', null)
      .orderBy('id')
      .$if(dialect === 'postgres', (q) => q.forUpdate())
      .execute()
  ).map((row) => row.id)

export const findAgentByEmail = (db: Kysely<Schema>, email: string) =>
  db.selectFrom('agent_accounts').selectAll().where('email', '=', email).executeTakeFirst()

export const topicsOfAgent = async (db: Kysely<Schema>, agentAccountID: string) =>
  (
    await db
      .selectFrom('agent_topics')
      .select('topic_id')
      .where('agent_account_id', '=', agentAccountID)
      .orderBy('topic_id')
      .execute()
  ).map((row) => row.topic_id)

export const updateAgent = (
  db: Kysely<Schema>,
  id: string,
  changes: Pick<
    Updateable<AgentAccountsTable>,
    | 'status'
    | 'updated'
    | 'full_name'
    | 'role'
    | 'last_assigned'
    | 'max_concurrent_cases'
    | 'password_hash'
    | 'deactivated_at'
    | 'notify_sound'
    | 'notify_desktop'
  >,
) => db.updateTable('agent_accounts').set(changes).where('id', '=', id).execute()

/** Records an assignment to the agent, unless they are deactivated: whether they are not. */
export const markAssigned = async (db: Kysely<Schema>, id: string, now: number) => {
  const result = await db
    .updateTable('agent_accounts')
    .set({ last_assigned: now })
    .where('id', '=', id)
    .where('deactivated_at', 'is', null)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

export const insertAgentSession = (db: Kysely<Schema>, row: AgentSessionsTable) =>
  db.insertInto('agent_sessions').values(row).execute()

/** The live session of a token hash, with its agent. */
export const findAgentSession = (db: Kysely<Schema>, tokenHash: string) =>
  db
    .selectFrom('agent_sessions as s')
    .innerJoin('agent_accounts as a', 'a.id', 's.agent_account_id')
    .select([
      's.token_hash',
      's.csrf_token_hash',
      's.expires_at',
      's.revoked_at',
      'a.id',
      'a.organization_id',
      'a.role',
      'a.deactivated_at',
    ])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst()

export const revokeAgentSession = (db: Kysely<Schema>, tokenHash: string, now: number) =>
  db.updateTable('agent_sessions').set({ revoked_at: now }).where('token_hash', '=', tokenHash).execute()

/** Ends every live session of the agent but `except` (a token hash); the token hashes it ended. */
export const revokeSessionsOf = async (
  db: Kysely<Schema>,
  agentAccountID: string,
  now: number,
  except = '',
) =>
  (
    await db
      .updateTable('agent_sessions')
      .set({ revoked_at: now })
      .where('agent_account_id', '=', agentAccountID)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .where('token_hash', '!=', except)
      .returning('token_hash')
      .execute()
  ).map((row) => row.token_hash)

/**
 * Online agents of the organization who work the topic, with how many cases they hold now: the
 * candidates of auto-assignment. With `lock` (PostgreSQL) their rows are locked first, in a
 * statement of its own, and counted after: the count then sees what the previous lock holder
 * committed, so two cases cannot both take an agent's last free slot.
 */
export async function availableAgents(
  db: Kysely<Schema>,
  query: { organizationID: string; topicID: number; email?: string; lock: boolean },
) {
  const candidates = db
    .selectFrom('agent_accounts as a')
    .innerJoin('agent_topics as t', 't.agent_account_id', 'a.id')
    .where('a.organization_id', '=', query.organizationID)
    .where('t.topic_id', '=', query.topicID)
    .where('a.status', '=', 'online')
    // A status set by a request still in flight when the agent was deactivated must not count.
    .where('a.deactivated_at', 'is', null)
    .$if(query.email !== undefined, (q) => q.where('a.email', '=', (query.email as string).toLowerCase()))
  if (query.lock) await candidates.select('a.id').forUpdate('a').execute()
  return candidates
    .select((eb) => [
      'a.id',
      'a.max_concurrent_cases',
      'a.last_assigned',
      eb
        .selectFrom('cases as c')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('c.agent_account_id', '=', 'a.id')
        .where('c.status', '=', 'assigned')
        .as('open'),
    ])
    .execute()
}

/** The agents who hear of a case waiting in a topic: those who work it, and the organization's admins. */
export const agentsHearingOfQueue = async (db: Kysely<Schema>, organizationID: string, topicID: number) =>
  (
    await db
      .selectFrom('agent_accounts as a')
      .select('a.id')
      .where('a.organization_id', '=', organizationID)
      .where((eb) =>
        eb.or([
          eb('a.role', '=', 'admin'),
          eb.exists(
            eb
              .selectFrom('agent_topics as t')
              .select('t.topic_id')
              .whereRef('t.agent_account_id', '=', 'a.id')
              .where('t.topic_id', '=', topicID),
          ),
        ]),
      )
      .execute()
  ).map((row) => row.id)
