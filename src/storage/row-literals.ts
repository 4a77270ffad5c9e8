/**
 * Row objects made by one object literal, compiled once per list of columns. V8 then gives every
 * row its final shape at once; setting one column after another walks each row through a chain of
 * shapes and regrows its property store: a room read's rows (two of 29 columns) cost 6 KB of
 * garbage per message that way, a quarter of what a message allocates on SQLite.
 */

/** `(source) => ({ [key]: source[from], ... })` for each [key, from] of `entries`. */
export function literalOf<S>(
  entries: readonly (readonly [key: string, from: string | number])[],
): (source: S) => Record<string, unknown> {
  const properties = entries.map(([key, from]) => {
    // A literal's __proto__ would set the prototype, not a column.
    if (key === '__proto__') throw new Error('a row cannot have a column named __proto__')
    return `${JSON.stringify(key)}: source[${JSON.stringify(from)}]`
  })
  // Keys and sources are quoted by JSON.stringify: column names, never code.
  return new Function('source', `return { ${properties.join(', ')} }`) as (
    source: S,
  ) => Record<string, unknown>
}
