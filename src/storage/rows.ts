import { literalOf } from './row-literals.js'

/**
 * Reads rows of a join whose columns were selected as `<prefix><column>`: the row's values under
 * `prefix`, as a row of `columns` (one object literal, compiled once: it runs per room read).
 */
export function picker<C extends string>(prefix: string, columns: readonly C[]) {
  const pick = literalOf<Record<string, unknown>>(columns.map((column) => [column, `${prefix}${column}`]))
  return pick as (row: Record<string, unknown>) => Record<C, never>
}
