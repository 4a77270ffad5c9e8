import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { DIALECTS, SQL_DIR, sqlListing } from './sql-listing.js'

// npm run sql: writes sql/<dialect>/<module>.sql afresh (test/unit/sql-listing.test.ts fails while
// they differ from what the prepared queries make).

const files = await sqlListing()
for (const dialect of DIALECTS) rmSync(join(SQL_DIR, dialect), { recursive: true, force: true })
for (const [path, text] of files) {
  mkdirSync(dirname(join(SQL_DIR, path)), { recursive: true })
  writeFileSync(join(SQL_DIR, path), text)
}
console.log(`Wrote ${[...files.keys()].map((path) => `sql/${path}`).join(', ')}`)
