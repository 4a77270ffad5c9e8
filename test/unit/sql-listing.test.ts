import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { DIALECTS, SQL_DIR, sqlListing } from '../../scripts/sql-listing.js'

// sql/ holds the SQL every prepared query makes, so that a change to a query is reviewed as SQL.

/** The checked-in listing: each file's path under sql/ and its text. */
function checkedIn(): Map<string, string> {
  const files = new Map<string, string>()
  for (const dialect of DIALECTS) {
    for (const file of readdirSync(join(SQL_DIR, dialect)).sort()) {
      files.set(`${dialect}/${file}`, readFileSync(join(SQL_DIR, dialect, file), 'utf8'))
    }
  }
  return files
}

test('sql/ lists the SQL of every prepared query as the code makes it now', async () => {
  const made = Object.fromEntries([...(await sqlListing())].sort(([a], [b]) => a.localeCompare(b)))
  expect(Object.fromEntries(checkedIn()), 'sql/ is stale: run `npm run sql` and commit it').toEqual(made)
})
