import type { Insertable, Kysely } from 'kysely'
import type { CaseNotesTable, Schema } from '../../storage/schema.js'

// The notes module's queries: internal notes on cases, and the mentions of agents in them.

/** Stores a note; nothing when the agent stored one with this localID before (a retry). */
export const insertNote = (db: Kysely<Schema>, row: Insertable<CaseNotesTable>) =>
  db
    .insertInto('case_notes')
    .values(row)
    .onConflict((c) => c.columns(['agent_account_id', 'local_id']).doNothing())
    .returningAll()
    .executeTakeFirst()

export const findByLocalID = (db: Kysely<Schema>, agentAccountID: string, localID: string) =>
  db
    .selectFrom('case_notes')
    .selectAll()
    .where('agent_account_id', '=', agentAccountID)
    .where('local_id', '=', localID)
    .executeTakeFirst()

/** The newest `limit` notes of a case, oldest first. */
export const notesOfCase = async (db: Kysely<Schema>, caseID: string, limit: number) =>
  (
    await db
      .selectFrom('case_notes')
      .selectAll()
      .where('case_id', '=', caseID)
      .orderBy('created', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute()
  ).reverse()

export const insertMentions = async (
  db: Kysely<Schema>,
  note: { id: string; case_id: string; created: number },
  agentAccountIDs: readonly string[],
) => {
  if (agentAccountIDs.length === 0) return
  await db
    .insertInto('note_mentions')
    .values(
      agentAccountIDs.map((agentAccountID) => ({
        agent_account_id: agentAccountID,
        note_id: note.id,
        case_id: note.case_id,
        created: note.created,
        read_at: null,
      })),
    )
    .onConflict((c) => c.columns(['agent_account_id', 'note_id']).doNothing())
    .execute()
}

/** An agent's newest mentions, with their notes. */
export const mentionsOf = (db: Kysely<Schema>, agentAccountID: string, limit: number, unreadOnly: boolean) =>
  db
    .selectFrom('note_mentions as m')
    .innerJoin('case_notes as n', 'n.id', 'm.note_id')
    .selectAll('n')
    .select('m.read_at')
    .where('m.agent_account_id', '=', agentAccountID)
    .$if(unreadOnly, (q) => q.where('m.read_at', 'is', null))
    .orderBy('m.created', 'desc')
    .orderBy('m.note_id', 'desc')
    .limit(limit)
    .execute()

export const unreadMentions = async (db: Kysely<Schema>, agentAccountID: string) => {
  const row = await db
    .selectFrom('note_mentions')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('agent_account_id', '=', agentAccountID)
    .where('read_at', 'is', null)
    .executeTakeFirst()
  return Number(row?.count ?? 0)
}

/** Marks the agent's unread mentions read: those of one case, or all. */
export const markMentionsRead = (db: Kysely<Schema>, agentAccountID: string, now: number, caseID?: string) =>
  db
    .updateTable('note_mentions')
    .set({ read_at: now })
    .where('agent_account_id', '=', agentAccountID)
    .where('read_at', 'is', null)
    .$if(caseID !== undefined, (q) => q.where('case_id', '=', caseID as string))
    .execute()

/** The organization's active agents who can be mentioned: ID, e-mail and name. */
export const mentionable = (db: Kysely<Schema>, organizationID: string) =>
  db
    .selectFrom('agent_accounts')
    .select(['id', 'email', 'full_name'])
    .where('organization_id', '=', organizationID)
    .where('deactivated_at', 'is', null)
    .execute()
