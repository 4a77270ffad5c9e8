import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { loadSqlite } from '../src/storage/sqlite-driver.js'
import { withStatementCache } from '../src/storage/statement-cache.js'
import { spareRoomReads, WriteMarks } from '../src/storage/write-marks.js'

const SQLite = loadSqlite()

// SQLite's write marks (storage/write-marks.ts) move before every statement that may change a room
// read, and after any other connection's commit; a cache of sends' room reads trusts them.

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

test('a write to a table room reads read moves the mark; reads and other tables do not', () => {
  const { marks, run, all } = marked()
  const start = marks.current()
  all('select * from users')
  run('insert into "messages" ("id", "body") values (?, ?)', ['m1', 'hello'])
  run('begin immediate')
  run('savepoint job')
  run('release job')
  run('commit')
  expect(marks.current()).toBe(start)
  run('insert into "users" ("id", "name") values (?, ?)', ['u1', 'Ann'])
  const afterInsert = marks.current()
  expect(afterInsert).not.toBe(start)
  // Even one that changes nothing, or returns rows.
  run('update "users" set "name" = ? where "id" = ?', ['Ben', 'nobody'])
  expect(marks.current()).not.toBe(afterInsert)
  const afterUpdate = marks.current()
  expect(all('delete from "rooms" where "id" = \'r\' returning *')).toEqual([])
  expect(marks.current()).not.toBe(afterUpdate)
})

test('a spared statement and the tables it writes leave the mark; a write it cannot read moves it', () => {
  const { marks, run } = marked()
  const bump = 'update "rooms" set "last" = ? where "id" = ?'
  spareRoomReads(bump)
  const start = marks.current()
  run(bump, [2, 'r'])
  expect(marks.current()).toBe(start)
  run("with x as (select 1) insert into messages (id, body) select 'm2', 'b' from x")
  expect(marks.current()).not.toBe(start)
  // A schema-qualified table is not read as its schema's name.
  const afterCTE = marks.current()
  run('insert into "main"."users" ("id", "name") values (?, ?)', ['u2', 'Cal'])
  expect(marks.current()).not.toBe(afterCTE)
})

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

test("another connection's commit moves the mark, whatever it wrote, from the next turn", async () => {
  const { file, marks } = marked()
  const start = marks.current()
  const other = new SQLite(file)
  other.prepare('insert into messages (id, body) values (?, ?)').run('m3', 'from the CLI')
  other.close()
  // Looked for once per turn of the event loop.
  expect(marks.current()).toBe(start)
  await nextTurn()
  const after = marks.current()
  expect(after).not.toBe(start)
  await nextTurn()
  expect(marks.current()).toBe(after)
})
