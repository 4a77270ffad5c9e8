/**
 * Reads rows of a join whose columns were selected as `<prefix><column>`: the row's values under
 * `prefix`, as a row of `columns` (one loop, the aliases made once: it runs per room read).
 */
export function picker<C extends string>(prefix: string, columns: readonly C[]) {
  const aliases = columns.map((column) => [column, `${prefix}${column}`] as const)
  return (row: Record<string, unknown>) => {
    const picked: Record<string, unknown> = {}
    for (const [column, alias] of aliases) picked[column] = row[alias]
    return picked as Record<C, never>
  }
}
