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

// `npm run api-types` (run by the build and by `npm test` before the type-checks): the console's and
// the SDK's API types, generated from the OpenAPI document (and the console's lists, from their
// source), so a server change that breaks the console or the SDK fails the type-check. The files are
// not checked in (see .gitignore): they are derived, never edited, and a copy in git could be stale.

const OUTPUT = 'console/src/openapi.generated.ts'
// The SDK's: the paths of the client API (a user's, with tokens from a ticket) and the visitor API's client part.
const CLIENT_OUTPUT = 'packages/client/src/openapi.generated.ts'
const CLIENT_PATHS = /^\/(v1\/(auth|chat|client)|api\/visitor\/v1\/client)\//
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

/** `document` with only the paths `pattern` matches. */
function only(document: OpenAPI3, pattern: RegExp): OpenAPI3 {
  const paths = Object.entries(document.paths ?? {}).filter(([path]) => pattern.test(path))
  return { ...document, paths: Object.fromEntries(paths) }
}

const document = await openAPIDocument()
writeIfChanged(OUTPUT, await openapiTS(document, { commentHeader: HEADER }))
writeIfChanged(CLIENT_OUTPUT, await openapiTS(only(document, CLIENT_PATHS), { commentHeader: HEADER }))

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
