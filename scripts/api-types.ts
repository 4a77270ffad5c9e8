import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import openapiTS, { type OpenAPI3 } from 'openapi-typescript'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config/config.js'
import { agentFrameShapes, userFrameShapes } from '../src/contract/frames.js'
import { CASE_STATUSES } from '../src/domain/cases/case.js'
import { EVENT_TYPES } from '../src/domain/events/event-types.js'
import { migrate, openDatabase } from '../src/storage/database.js'
import { frameTypes } from './frame-types.js'

// `npm run api-types` (run by the build and by `npm test` before the console's type-check): the
// console's API types, generated from the OpenAPI document (and its lists, from their source), so a server change that breaks the
// console fails the type-check. The file is not checked in (see .gitignore): it is derived, never
// edited, and a copy in git could be stale.

const OUTPUT = 'console/src/openapi.generated.ts'
const LISTS = 'console/src/lists.generated.ts'
// The frames each client receives (src/contract/frames.ts): the console is an agent's, the SDK a user's.
const AGENT_FRAMES = 'console/src/frames.generated.ts'
const USER_FRAMES = 'packages/client/src/frames.generated.ts'
// Its first line is also the reason `npm run check:sizes` asks of a file this long.
const HEADER =
  '// Long file: generated from the OpenAPI document by `npm run api-types` (scripts/api-types.ts); ' +
  'do not edit.\n\n'

/** The OpenAPI document, from the app built without listening, on a throwaway SQLite database. */
async function openAPIDocument(): Promise<OpenAPI3> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-api-types-'))
  try {
    // Only these variables: DATABASE_URL or REDIS_URL in the environment must not be reached.
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' })
    const database = openDatabase(config)
    // Migrated: the app leases its ID worker number from the database as it is built.
    await migrate(database)
    const app = await buildApp({
      config,
      database,
      masterKey: randomBytes(32),
      delivery: { autoStart: false },
    })
    try {
      return (await app.inject({ method: 'GET', url: '/docs/json' })).json() as OpenAPI3
    } finally {
      await app.close()
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** Written only when it changed: the tests' build runs when a console source is newer than it. */
function writeIfChanged(path: string, text: string): void {
  const current = (() => {
    try {
      return readFileSync(path, 'utf8')
    } catch {
      return undefined
    }
  })()
  if (text !== current) writeFileSync(path, text)
}

writeIfChanged(OUTPUT, await openapiTS(await openAPIDocument(), { commentHeader: HEADER }))

// The lists the console needs as values (a type gives no list to show): from their one source.
const list = (name: string, values: readonly string[]) =>
  `export const ${name} = ${JSON.stringify(values)} as const\n`
writeIfChanged(
  LISTS,
  '// Generated from src/ by `npm run api-types` (scripts/api-types.ts); do not edit.\n\n' +
    '/** Every case status (src/domain/cases/case.ts). */\n' +
    list('CASE_STATUSES', CASE_STATUSES) +
    '\n/** Every event type an event endpoint may subscribe to (src/domain/events/event-types.ts). */\n' +
    list('EVENT_TYPES', EVENT_TYPES),
)
writeIfChanged(AGENT_FRAMES, await frameTypes(agentFrameShapes, 'Agent'))
writeIfChanged(USER_FRAMES, await frameTypes(userFrameShapes, 'User'))
