import { type Kysely, sql } from 'kysely'

// Support reports (docs/reference/agent-api.md, "Reports"): when a case first went to agents (`handed_over_at`: born
// without a chatbot, or the chatbot handed it over, or an agent took it from the chatbot) and when an
// agent first wrote in it (`first_response_at`). Both are set once, in the transaction that hands the
// case over or stores the agent's message, and never changed again (not by a transfer or reopening).
// Cases from before this migration get them from their messages where the messages tell.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite adds one column at a time.
  await db.schema.alterTable('cases').addColumn('handed_over_at', 'bigint').execute()
  await db.schema.alterTable('cases').addColumn('first_response_at', 'bigint').execute()

  await backfill(db)

  // Reports read each kind of event by organization and time, and with it what they count or take
  // the median of and what they group by: each index holds all of that (covering), so a year of
  // cases is read from the index alone.
  const covering: [string, string[]][] = [
    ['opened', ['created', 'topic_id', 'agent_account_id']],
    ['handed_over', ['handed_over_at', 'first_response_at', 'topic_id', 'agent_account_id']],
    ['closed', ['closed_time', 'created', 'topic_id', 'agent_account_id']],
    ['rated', ['rated_at', 'rating', 'topic_id', 'agent_account_id']],
  ]
  for (const [name, columns] of covering)
    await db.schema
      .createIndex(`cases_report_${name}`)
      .on('cases')
      .columns(['organization_id', ...columns])
      .execute()
}

/** The handover and first response of the cases stored before, from their messages (where they tell). */
export async function backfill(db: Kysely<unknown>): Promise<void> {
  // Born waiting for an agent (no chatbot had it): handed over when opened.
  await sql`update cases set handed_over_at = created where chatbot_id is null and handed_over_at is null`.execute(
    db,
  )
  // Else the first of Parley's notes saying the case went to a queue or an agent (the engine writes
  // `{"action":…,"caseID":…,"status":…}` as the data of each), failing that the first agent message.
  await sql`update cases set handed_over_at = coalesce(
      (select min(m.created) from messages m where m.room_id = cases.room_id and m.sender_id = 'system'
        and (m.data like '%"status":"queued"%' or m.data like '%"status":"assigned"%')),
      (select min(m.created) from messages m where m.room_id = cases.room_id and m.sender_id like 'agent:%'))
    where handed_over_at is null`.execute(db)
  await sql`update cases set first_response_at =
      (select min(m.created) from messages m where m.room_id = cases.room_id and m.sender_id like 'agent:%'
        and m.created >= cases.handed_over_at)
    where handed_over_at is not null and first_response_at is null`.execute(db)
}
