import type { Insertable, Kysely, Updateable } from 'kysely'
import type { Dialect } from '../../storage/database.js'
import type { AgentAccountsTable, AgentSessionsTable, Schema } from '../../storage/schema.js'

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

export const findAgent = (db: Kysely<Schema>, id: string) =>
  db.selectFrom('agent_accounts').selectAll().where('id', '=', id).executeTakeFirst()

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
    .orderBy('id')
    .execute()

/** The organization's admins, locked on PostgreSQL for the rest of the transaction. */
export const lockAdmins = (db: Kysely<Schema>, organizationID: string, dialect: Dialect) =>
  db
    .selectFrom('agent_accounts')
    .select('id')
    .where('organization_id', '=', organizationID)
    .where('role', '=', 'admin')
    .$if(dialect === 'postgres', (q) => q.forUpdate())
    .execute()

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
    'status' | 'updated' | 'full_name' | 'role' | 'last_assigned' | 'max_concurrent_cases'
  >,
) => db.updateTable('agent_accounts').set(changes).where('id', '=', id).execute()

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
    ])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst()

export const revokeAgentSession = (db: Kysely<Schema>, tokenHash: string, now: number) =>
  db.updateTable('agent_sessions').set({ revoked_at: now }).where('token_hash', '=', tokenHash).execute()

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
