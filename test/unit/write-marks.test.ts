import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { loadSqlite } from '../../src/storage/sqlite-driver.js'
import { withStatementCache } from '../../src/storage/statement-cache.js'
import { spareRoomReads, WriteMarks } from '../../src/storage/write-marks.js'

const SQLite = loadSqlite()

// SQLite's write marks (storage/write-marks.ts) move before every statement that may change a room
// read, and after any other connection's commit; a cache of room reads trusts them. The sends'
// mark stays for statements that change only what sends spare; the exact mark moves for them too.

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function marked() {
  const dir = mkdtempSync(join(tmpdir(), 'parley-marks-'))
  dirs.push(dir)
  const file = join(dir, 'test.db')
  const sqlite = new SQLite(file)
  sqlite.pragma('journal_mode = WAL')
  sqlite.exec(`create table users (id text primary key, name text);
    create table rooms (id text primary key, last integer);
    create table messages (id text primary key, body text);`)
  const dataVersion = sqlite.prepare('pragma data_version').pluck()
  const marks = new WriteMarks(() => dataVersion.get())
  const cached = withStatementCache(sqlite, marks)
  const run = (sql: string, parameters: unknown[] = []) => cached.prepare(sql).run(parameters)
  return { file, marks, run, all: (sql: string) => cached.prepare(sql).all([]) }
}

/** Both marks, now. */
const both = (marks: WriteMarks) => ({ exact: marks.exact(), forSends: marks.forSends() })

/** Whether each mark moved since `before`. */
const movedSince = (marks: WriteMarks, before: ReturnType<typeof both>) => ({
  exact: marks.exact() !== before.exact,
  forSends: marks.forSends() !== before.forSends,
})

test('a write to a table room reads read moves both marks; reads and other tables do not', () => {
  const { marks, run, all } = marked()
  const start = both(marks)
  all('select * from users')
  run('insert into "messages" ("id", "body") values (?, ?)', ['m1', 'hello'])
  run('begin immediate')
  run('savepoint job')
  run('release job')
  run('commit')
  expect(movedSince(marks, start)).toEqual({ exact: false, forSends: false })
  run('insert into "users" ("id", "name") values (?, ?)', ['u1', 'Ann'])
  expect(movedSince(marks, start)).toEqual({ exact: true, forSends: true })
  // Even one that changes nothing, or returns rows.
  const afterInsert = both(marks)
  run('update "users" set "name" = ? where "id" = ?', ['Ben', 'nobody'])
  expect(movedSince(marks, afterInsert)).toEqual({ exact: true, forSends: true })
  const afterUpdate = both(marks)
  expect(all('delete from "rooms" where "id" = \'r\' returning *')).toEqual([])
  expect(movedSince(marks, afterUpdate)).toEqual({ exact: true, forSends: true })
})

test('a spared statement moves the exact mark only; a write whose table it cannot read moves both', () => {
  const { marks, run } = marked()
  const bump = 'update "rooms" set "last" = ? where "id" = ?'
  spareRoomReads(bump)
  const start = both(marks)
  run(bump, [2, 'r'])
  expect(movedSince(marks, start)).toEqual({ exact: true, forSends: false })
  const afterBump = both(marks)
  run("with x as (select 1) insert into messages (id, body) select 'm2', 'b' from x")
  expect(movedSince(marks, afterBump)).toEqual({ exact: true, forSends: true })
  // A schema-qualified table is not read as its schema's name.
  const afterCTE = both(marks)
  run('insert into "main"."users" ("id", "name") values (?, ?)', ['u2', 'Cal'])
  expect(movedSince(marks, afterCTE)).toEqual({ exact: true, forSends: true })
})

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

test("another connection's commit moves both marks, whatever it wrote, from the next turn", async () => {
  const { file, marks } = marked()
  const start = both(marks)
  const other = new SQLite(file)
  other.prepare('insert into messages (id, body) values (?, ?)').run('m3', 'from the CLI')
  other.close()
  // Looked for once per turn of the event loop.
  expect(movedSince(marks, start)).toEqual({ exact: false, forSends: false })
  await nextTurn()
  expect(movedSince(marks, start)).toEqual({ exact: true, forSends: true })
  const after = both(marks)
  await nextTurn()
  expect(movedSince(marks, after)).toEqual({ exact: false, forSends: false })
})
