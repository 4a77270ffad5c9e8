import { type Kysely, SqliteAdapter, sql } from 'kysely'

// A cache of support reports' events (docs/reference/agent-api.md, "Reports"), shared by every instance on the database:
// `report_days` holds per organization and UTC day (days since 1970-01-01) the events of its
// cases in that day, packed (domain/reports/day-events.ts), and a version. Triggers on `cases`
// bump the version and drop the events of every day a changed case has (or had) an event in, in
// the transaction of the change, whatever code changes it. A report stores a day only if the
// version is still the one it read before reading the day's events (see report-days.repository.ts).
export const COLUMNS = [
  'topic_id',
  'agent_account_id',
  'created',
  'handed_over_at',
  'first_response_at',
  'closed_time',
  'rating',
  'rated_at',
]
const DAY_MS = 86_400_000
const TIMES = ['created', 'handed_over_at', 'closed_time', 'rated_at']

/** The days (ascending, so concurrent changes lock them in one order) of a case row's events. */
const daysOf = (rows: string[]) =>
  rows.flatMap((row) => TIMES.map((time) => `select ${row}.${time} / ${DAY_MS} as day`)).join(' union ')

/** Bumps the days of the case rows `rows` (`new`, `old` or both). */
const touch = (rows: string[], organization: string) =>
  `insert into report_days (organization_id, day, version)
    select ${organization}, day, 1 from (${daysOf(rows)}) d where day is not null order by day
    on conflict (organization_id, day) do update set version = report_days.version + 1, events = null`

export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter
  await db.schema
    .createTable('report_days')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('events', sqlite ? 'blob' : sql`bytea`)
    .addPrimaryKeyConstraint('report_days_pk', ['organization_id', 'day'])
    .execute()
  const changed = COLUMNS.map((column) =>
    sqlite ? `old.${column} is not new.${column}` : `old.${column} is distinct from new.${column}`,
  ).join(' or ')
  if (sqlite) {
    await sql
      .raw(`create trigger cases_report_days_insert after insert on cases begin
        ${touch(['new'], 'new.organization_id')}; end`)
      .execute(db)
    await sql
      .raw(`create trigger cases_report_days_update after update of ${COLUMNS.join(', ')} on cases
        when ${changed} begin ${touch(['old', 'new'], 'new.organization_id')}; end`)
      .execute(db)
    await sql
      .raw(`create trigger cases_report_days_delete after delete on cases begin
        ${touch(['old'], 'old.organization_id')}; end`)
      .execute(db)
    return
  }
  await sql
    .raw(`create function cases_report_days() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then ${touch(['new'], 'new.organization_id')};
      elsif tg_op = 'DELETE' then ${touch(['old'], 'old.organization_id')};
      else ${touch(['old', 'new'], 'new.organization_id')};
      end if;
      return null;
    end $$`)
    .execute(db)
  await sql
    .raw(`create trigger cases_report_days_insert after insert or delete on cases
      for each row execute function cases_report_days()`)
    .execute(db)
  await sql
    .raw(`create trigger cases_report_days_update after update of ${COLUMNS.join(', ')} on cases
      for each row when (${changed}) execute function cases_report_days()`)
    .execute(db)
}
