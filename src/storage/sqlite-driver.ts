import { createRequire } from 'node:module'
import type SQLite from 'better-sqlite3'

/**
 * Which better-sqlite3 this Node can run. Version 13 is built on Node-API 10 (Node 22.14 and newer)
 * and ships its binaries: it is the one Parley uses. Version 12 (installed as
 * `better-sqlite3-node20`, an optional dependency compiled at install) is for older Nodes — Node 20
 * above all, where 13 crashes; 12 in turn aborts on Node 24 (its `node::ObjectWrap` statements:
 * `Assertion failed: (env) != nullptr`). The two have the same API.
 */
export const SQLITE_DRIVER = Number(process.versions.napi) >= 10 ? 'better-sqlite3' : 'better-sqlite3-node20'

const require = createRequire(import.meta.url)

/** The driver's file, for a thread that loads it itself (the checkpointer). */
export const sqliteDriverPath = (): string => require.resolve(SQLITE_DRIVER)

/**
 * The driver's Database class. The old driver is an optional dependency, compiled at install: where
 * that failed (no compiler) it is missing, and the error says what to do instead of where it looked.
 */
export function loadSqlite(): typeof SQLite {
  try {
    return require(SQLITE_DRIVER)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error
    throw new Error(
      `SQLite on Node ${process.version} needs ${SQLITE_DRIVER}, which is not installed ` +
        '(it is compiled at `npm install`, which needs python3, make and a C++ compiler): ' +
        'run Node 22.14 or newer, or set DATABASE_URL for PostgreSQL',
      { cause: error },
    )
  }
}
