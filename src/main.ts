import { buildApp } from './app.js'
import { ConfigError, listenError, loadConfig } from './config/config.js'
import { loadMasterKey } from './config/master-key.js'
import { migrate, openDatabase } from './storage/database.js'

async function main(): Promise<void> {
  const config = loadConfig()
  const masterKey = loadMasterKey(config)
  const database = openDatabase(config)
  await migrate(database)
  const app = await buildApp({ config, database, masterKey })

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

  await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
    // A busy port or a foreign address is a setting to change, not a crash.
    throw listenError(error, config) ?? error
  })
}

main().catch((error: unknown) => {
  // A bad configuration is one clear line; anything else is a crash with its stack.
  if (error instanceof ConfigError) console.error(error.message)
  else console.error(error)
  process.exit(1)
})
