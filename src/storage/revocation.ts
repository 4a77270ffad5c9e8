import type { Kysely } from 'kysely'
import type { Schema } from './schema.js'

/**
 * Marks a row of a revocable table revoked, keeping the first revocation time; false when there
 * is no such row.
 */
export async function markRevoked(
  db: Kysely<Schema>,
  table: 'server_keys' | 'app_keys' | 'sessions',
  id: string,
  now: number,
): Promise<boolean> {
  const result = await (db as Kysely<Pick<Schema, 'sessions'>>)
    .updateTable(table as 'sessions')
    .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(now)) }))
    .where('id', '=', id)
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}
