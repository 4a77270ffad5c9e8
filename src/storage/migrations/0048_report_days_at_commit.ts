import { type Kysely, SqliteAdapter, sql } from 'kysely'
import { COLUMNS } from './0021_report_days.js'

// PostgreSQL: the triggers of 0021 bump report_days at commit instead of at the change. Every case
// opened (or first answered, closed, rated) in an organization on a day bumps that day's one row,
// and the row's lock was held from the change to the end of its transaction: each case of an
// organization was opened after the previous one committed (inbound e-mail: 15 mails/s). As
// deferred constraint triggers they run in the same transaction, just before it commits, so the
// lock is held only for the commit itself. SQLite has one writer anyway: nothing to change.

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return
  const timing = 'deferrable initially deferred'
  const changed = COLUMNS.map((column) => `old.${column} is distinct from new.${column}`).join(' or ')
  await sql`drop trigger cases_report_days_insert on cases`.execute(db)
  await sql`drop trigger cases_report_days_update on cases`.execute(db)
  await sql
    .raw(`create constraint trigger cases_report_days_insert after insert or delete on cases
      ${timing} for each row execute function cases_report_days()`)
    .execute(db)
  await sql
    .raw(`create constraint trigger cases_report_days_update after update of ${COLUMNS.join(', ')} on cases
      ${timing} for each row when (${changed}) execute function cases_report_days()`)
    .execute(db)
}
