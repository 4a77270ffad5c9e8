import { type FixedValue, literalOf } from './row-literals.js'

/**
 * Reads rows of a join whose columns were selected as `<prefix><column>`: the row's values under
 * `prefix`, as a row of `columns` and of the `fixed` columns every such row has (one object
 * literal, compiled once: it runs per room read and per message stored).
 */
export function picker<C extends string, F extends string = never>(
  prefix: string,
  columns: readonly C[],
  fixed: Readonly<Record<F, FixedValue>> = {} as Record<F, FixedValue>,
) {
  const entries = columns.map((column) => [column, `${prefix}${column}`] as const)
  const pick = literalOf<Record<string, unknown>>(entries, fixed)
  return pick as (row: Record<string, unknown>) => Record<C | F, never>
}
