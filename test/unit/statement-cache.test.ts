import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { loadSqlite } from '../../src/storage/sqlite-driver.js'
import { withStatementCache } from '../../src/storage/statement-cache.js'
import { WriteMarks } from '../../src/storage/write-marks.js'

const SQLite = loadSqlite()

// SQLite's rows are made into objects by the statement cache (storage/statement-cache.ts), not by
// better-sqlite3: they must be the rows better-sqlite3 makes, for every kind of value and query.

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function twoHandles() {
  const dir = mkdtempSync(join(tmpdir(), 'parley-statements-'))
  dirs.push(dir)
  const sqlite = new SQLite(join(dir, 'test.db'))
  sqlite.exec(`create table t (id text primary key, n integer, r real, b blob, s text);
    insert into t values ('a', 1, 1.5, x'00ff', null), ('b', 9007199254740991, -0.25, null, 'ü\u0001');`)
  return { sqlite, cached: withStatementCache(sqlite, new WriteMarks(() => 0)) }
}

test('rows are the ones better-sqlite3 makes: values of each type, a name given twice, no rows', () => {
  const { sqlite, cached } = twoHandles()
  const queries: [string, unknown[]][] = [
    ['select * from t order by id', []],
    ['select t.id, u.id, t.n + 1 as n from t join t as u on u.id <> t.id order by t.id', []],
    ['select s, b from t where id = ?', ['b']],
    ['select * from t where id = ?', ['none']],
  ]
  for (const [sql, parameters] of queries)
    expect(cached.prepare(sql).all(parameters)).toEqual(sqlite.prepare(sql).all(...parameters))
  const inserted = cached.prepare('insert into t (id, n) values (?, ?) returning id, n').all(['c', 3])
  expect(inserted).toEqual([{ id: 'c', n: 3 }])
  const statement = cached.prepare('select id from t where n > ? order by id')
  expect([...statement.iterate([0])]).toEqual([{ id: 'a' }, { id: 'b' }, { id: 'c' }])
  expect(statement.all([2])).toEqual([{ id: 'b' }, { id: 'c' }])
})

test('a statement that returns no rows runs as before', () => {
  const { sqlite, cached } = twoHandles()
  const result = cached.prepare('update t set n = n + 1 where id = ?').run(['a'])
  expect(result.changes).toBe(1)
  expect(sqlite.prepare('select n from t where id = ?').get('a')).toEqual({ n: 2 })
})

test('column names are keys, never code: quotes, braces and newlines come through as written', () => {
  const { sqlite, cached } = twoHandles()
  const sql = `select 1 as "a""b", 2 as "x}); throw 1; ({", 3 as "line
break", 4 as "\\", 5 as "constructor"`
  expect(cached.prepare(sql).all([])).toEqual(sqlite.prepare(sql).all())
  expect(Object.keys(cached.prepare(sql).all([])[0] as object)).toEqual([
    'a"b',
    'x}); throw 1; ({',
    'line\nbreak',
    '\\',
    'constructor',
  ])
})

test('a column named __proto__ is refused when prepared, not made the row prototype', () => {
  const { cached } = twoHandles()
  expect(() => cached.prepare('select 1 as "__proto__"')).toThrow(/__proto__/)
})

test('the 500 statements used last are kept: one used again stays, the least recently used goes', () => {
  const { cached } = twoHandles()
  const sqlOf = (i: number) => `select ${i} as n`
  const first = cached.prepare(sqlOf(0))
  const second = cached.prepare(sqlOf(1))
  for (let i = 2; i < 500; i++) cached.prepare(sqlOf(i))
  expect(cached.prepare(sqlOf(0))).toBe(first)
  cached.prepare(sqlOf(500))
  expect(cached.prepare(sqlOf(0))).toBe(first)
  const again = cached.prepare(sqlOf(1))
  expect(again).not.toBe(second)
  expect(again.all([])).toEqual([{ n: 1 }])
})
