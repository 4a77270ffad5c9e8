import { buildApp } from './app.js'
import { ConfigError, listenError, loadConfig } from './config/config.js'
import { loadMasterKey } from './config/master-key.js'
import { firstRunNotes, firstRunState } from './domain/agents/first-run.js'
import { isAppError } from './errors/app-error.js'
import { migrate, openDatabase } from './storage/database.js'

async function start(): Promise<void> {
  const config = loadConfig()
  const masterKey = loadMasterKey(config)
  const database = openDatabase(config)
  await migrate(database)
  // A start that fails closes the database, giving its ID worker number back at once: a supervisor
  // restarting a server that cannot start must not use up the numbers meanwhile.
  const app = await buildApp({ config, database, masterKey }).catch(async (error: unknown) => {
    await database.close().catch(() => {})
    throw error
  })

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'shutting down')
    await app.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))

  const address = await app.listen({ port: config.port, host: config.host }).catch(async (error: unknown) => {
    await app.close().catch(() => {})
    // A busy port or a foreign address is a setting to change, not a crash.
    throw listenError(error, config) ?? error
  })
  // Where the console is and, on a first run, how its first admin is made: the one thing `npm
  // start` cannot do for its operator (docs/getting-started/backend.md and README.md say so too).
  const state = await firstRunState(database.db).catch((error: unknown) => {
    app.log.warn({ err: error }, 'could not tell whether an admin exists')
    return { hasAdmin: true, organizationIDs: [] }
  })
  const publicURL = config.port === 0 ? address : config.publicURL // port 0: the one it was given
  for (const note of firstRunNotes(state, publicURL)) app.log.info(note)
}

/** Starts the server: resolves once it listens; a start that fails ends the process. */
export function serve(): Promise<void> {
  return start().catch((error: unknown) => {
    // A bad configuration, or a refusal to start (no ID worker number free), is one clear line;
    // anything else is a crash with its stack.
    if (error instanceof ConfigError || isAppError(error)) console.error(error.message)
    else console.error(error)
    process.exit(1)
  })
}
