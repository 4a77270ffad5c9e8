import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../config/config.js'
import { loadMasterKey } from '../config/master-key.js'
import { isAppError } from '../errors/app-error.js'
import { systemClock } from '../lib/clock.js'
import { DestinationPolicy } from '../lib/destinations.js'
import { createServices } from '../services.js'
import { migrate, openDatabase } from '../storage/database.js'
import { type Command, commands } from './commands.js'

// The admin CLI: `npm run --silent parley -- <command> [--json]`. It works on the same
// configuration and data as the server, also while the server runs. With --json, stdout holds
// exactly one JSON object on one line; everything else goes to stderr.

const USAGE = [
  'usage: parley <command> [options] [--json]',
  '',
  'commands:',
  ...Object.values(commands).map((command) => `  ${command.usage}`),
  '  migrate',
].join('\n')

class UsageError extends Error {}

function parse(argv: string[]): {
  command: Command | 'migrate'
  options: Record<string, string>
  json: boolean
} {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      name: { type: 'string' },
      org: { type: 'string' },
      id: { type: 'string' },
      url: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
    },
  })
  const { json = false, ...options } = values
  const name = positionals.join(' ')
  if (name === 'migrate') return { command: 'migrate', options: {}, json }
  const command = commands[name]
  if (!command) throw new UsageError(name ? `unknown command: ${name}` : 'no command given')
  for (const option of command.options) {
    if (!options[option as keyof typeof options]?.trim()) throw new UsageError(`missing --${option}`)
  }
  return { command, options: options as Record<string, string>, json }
}

/** The first line of standard input, without its line ending. */
async function readLine(): Promise<string> {
  let text = ''
  for await (const chunk of process.stdin) text += chunk
  return text.split(/\r?\n/)[0] ?? ''
}

function print(result: object, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`)
    return
  }
  for (const [key, value] of Object.entries(result)) {
    process.stdout.write(`${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}\n`)
  }
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(argv)
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`)
    return 2
  }
  const config = loadConfig()
  const database = openDatabase(config)
  try {
    await migrate(database)
    if (parsed.command === 'migrate') {
      print({ migrated: true }, parsed.json)
      return 0
    }
    const services = createServices({
      database,
      clock: systemClock,
      masterKey: loadMasterKey(config),
      publicURL: config.publicURL,
      destinations: new DestinationPolicy(config.chatbotURLAllow),
    })
    const input = parsed.command.stdin ? await readLine() : ''
    print(await parsed.command.run(services, parsed.options, input), parsed.json)
    return 0
  } catch (error) {
    if (!isAppError(error)) throw error
    process.stderr.write(`error: ${error.message}\n`)
    return 1
  } finally {
    await database.close()
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof ConfigError ? error.message : String((error as Error).stack ?? error)}\n`,
    )
    process.exitCode = 1
  },
)
