/**
 * Row objects made by one object literal, compiled once per list of columns. V8 then gives every
 * row its final shape at once; setting one column after another walks each row through a chain of
 * shapes and regrows its property store: a room read's rows (two of 29 columns) cost 6 KB of
 * garbage per message that way, a quarter of what a message allocates on SQLite.
 */

/** A column's value that every row made by a literal has (a number, a string or null). */
export type FixedValue = number | string | null

/**
 * `(source) => ({ [key]: source[from], ..., [fixedKey]: value, ... })` for each [key, from] of
 * `entries` and each column of `fixed`.
 */
export function literalOf<S>(
  entries: readonly (readonly [key: string, from: string | number])[],
  fixed: Readonly<Record<string, FixedValue>> = {},
): (source: S) => Record<string, unknown> {
  const properties = [
    ...entries.map(([key, from]) => `${propertyKey(key)}: source[${JSON.stringify(from)}]`),
    ...Object.entries(fixed).map(([key, value]) => `${propertyKey(key)}: ${JSON.stringify(value)}`),
  ]
  // Keys, sources and fixed values are written by JSON.stringify: names and literals, never code.
  return new Function('source', `return { ${properties.join(', ')} }`) as (
    source: S,
  ) => Record<string, unknown>
}

function propertyKey(key: string): string {
  // A literal's __proto__ would set the prototype, not a column.
  if (key === '__proto__') throw new Error('a row cannot have a column named __proto__')
  return JSON.stringify(key)
}
