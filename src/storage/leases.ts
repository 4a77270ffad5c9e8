import type { Kysely } from 'kysely'
import type { Schema } from './schema.js'

/** The tables whose rows an instance leases while it works on them (their `lease_until`). */
type LeasedTable = 'deliveries' | 'scheduled_messages'

/**
 * Leases rows just claimed (in the claiming transaction) until `until`, epoch ms: other instances'
 * claims pass them over until then, so a crashed instance's rows are claimed again once their lease ends.
 * Answers the rows as they now are.
 */
export async function leaseRows<R extends { id: string }>(
  db: Kysely<Schema>,
  table: LeasedTable,
  rows: readonly R[],
  until: number,
): Promise<(R & { lease_until: number })[]> {
  if (rows.length === 0) return []
  await db
    .updateTable(table)
    .set({ lease_until: until })
    .where(
      'id',
      'in',
      rows.map((row) => row.id),
    )
    .execute()
  return rows.map((row) => ({ ...row, lease_until: until }))
}
