import type { SelectQueryBuilder } from 'kysely'

/**
 * How many rows a query (its table and conditions) finds. `count(*)` comes back as a number on
 * SQLite and as a bigint's text on PostgreSQL: read as a number either way.
 */
export const countRows = async <DB, TB extends keyof DB>(
  query: SelectQueryBuilder<DB, TB, object>,
): Promise<number> => {
  // The table is any of the schema's, so Kysely is told the shape of the one column read.
  const row = await query
    .select((eb) => eb.fn.countAll().as('n'))
    .$castTo<{ n: number | string | bigint }>()
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}
