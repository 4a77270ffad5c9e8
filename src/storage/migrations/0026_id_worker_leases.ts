import { type Kysely, sql } from 'kysely'

// Worker numbers grow from 6 bits (64) to 9 (512), taking 3 bits from the sequence (lib/ids.ts):
// IDs of old worker w at a millisecond are those of new workers 8w to 8w + 7 there. So each old
// lease goes on as the leases of those 8 numbers, until the same end and with the same floor, and
// a number taken after it starts its IDs after anything the old holder could issue. The table is
// new, and the old one dropped, so that a process of the previous version still running can renew
// nothing: it stops issuing once the lease it holds (copied here) runs out.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('id_worker_leases')
    .addColumn('worker', 'integer', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires', 'bigint', (c) => c.notNull())
    .addColumn('floor', 'bigint', (c) => c.notNull())
    .execute()
  await sql`
    insert into id_worker_leases (worker, holder, expires, floor)
    select w.worker * 8 + k.k, w.holder, w.expires, w.floor
    from id_workers w
    cross join (select 0 as k union all select 1 union all select 2 union all select 3
      union all select 4 union all select 5 union all select 6 union all select 7) k`.execute(db)
  await db.schema.dropTable('id_workers').execute()
}
