import { userInfo } from 'node:os'
import { parseArgs } from 'node:util'
import { ConfigError, loadConfig } from '../config/config.js'
import { loadMasterKey } from '../config/master-key.js'
import type { Actor } from '../domain/audit/actor.js'
import { isAppError } from '../errors/app-error.js'
import { systemClock } from '../lib/clock.js'
import { DestinationPolicy } from '../lib/destinations.js'
import { type Command, commands } from './commands.js'

// The admin CLI: `npm run --silent parley -- <command> [--json]`. It works on the same
// configuration and data as the server, also while the server runs. With --json, stdout holds
// exactly one JSON object on one line; everything else goes to stderr.

/** `migrate` needs no services (nor a master key): it is only what every command does first. */
const MIGRATE = 'migrate'
const migrateHelp = {
  usage: MIGRATE,
  summary: 'Applies pending database migrations (the server also does on start).',
}
const allHelp = [...Object.values(commands), migrateHelp]

const USAGE = [
  'usage: parley <command> [options] [--json]',
  '       parley [<command>] --help',
  '',
  'commands:',
  ...allHelp.map((command) => `  ${command.usage}`),
].join('\n')

/** The help of every command whose name starts with `prefix` (all of them for ''). */
function help(prefix: string): string | undefined {
  const matching = allHelp.filter((c) => `${c.usage} `.startsWith(`${prefix} `) || prefix === '')
  if (matching.length === 0) return undefined
  const entries = matching.map((c) => `  ${c.usage}\n      ${c.summary}`)
  const header = prefix
    ? `usage: parley ${prefix} ... [--json]`
    : 'usage: parley <command> [options] [--json]'
  return [header, '', 'commands:', ...entries, '', GLOBAL_NOTES].join('\n')
}

const GLOBAL_NOTES = [
  'options of every command:',
  '  --json   print exactly one JSON object on one line to stdout',
  '  --help   print this help',
  'Changes are written to the organization\'s audit log as made by "cli:<your OS user>".',
  '',
  "It reads the same settings as the server, from the environment: run it with the server's",
  'DATA_DIR (or DATABASE_URL and PARLEY_MASTER_KEY) to work on its data, and its PUBLIC_URL (else',
  "HOST and PORT) for the URLs it prints, such as a chatbot's webhookURL.",
].join('\n')

class UsageError extends Error {}

type Parsed =
  | { kind: 'help'; text: string }
  | { kind: 'migrate'; json: boolean }
  | { kind: 'run'; command: Command; options: Record<string, string>; json: boolean }

function parse(argv: string[]): Parsed {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      name: { type: 'string' },
      org: { type: 'string' },
      id: { type: 'string' },
      url: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      events: { type: 'string' },
      delivery: { type: 'string' },
    },
  })
  const { json = false, help: wantsHelp = false, ...options } = values
  const name = positionals.join(' ')
  if (wantsHelp || name === 'help') {
    const text = help(name === 'help' ? '' : name)
    if (!text) throw new UsageError(`unknown command: ${name}`)
    return { kind: 'help', text }
  }
  if (name === MIGRATE) return { kind: 'migrate', json }
  const command = commands[name]
  if (!command) throw new UsageError(name ? `unknown command: ${name}` : 'no command given')
  for (const option of Object.keys(options)) {
    if (!command.options.includes(option)) throw new UsageError(`${name} takes no --${option}`)
  }
  for (const option of command.options) {
    if (!options[option as keyof typeof options]?.trim()) throw new UsageError(`missing --${option}`)
  }
  return { kind: 'run', command, options: options as Record<string, string>, json }
}

/** Who the audit log names for changes made here: the operator's OS account. */
function cliActor(): Actor {
  let user = process.env.USER ?? ''
  try {
    user = userInfo().username
  } catch {
    // A container may run under a UID with no account: keep $USER, if any.
  }
  return { kind: 'cli', user: user || 'unknown' }
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
  let parsed: Parsed
  try {
    parsed = parse(argv)
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`)
    return 2
  }
  if (parsed.kind === 'help') {
    process.stdout.write(`${parsed.text}\n`)
    return 0
  }
  const config = loadConfig()
  // Loaded only now: help and usage errors answer without loading the domain and the drivers.
  const [{ createServices }, { migrate, openDatabase }, { fileStorage }] = await Promise.all([
    import('../services.js'),
    import('../storage/database.js'),
    import('../storage/files/index.js'),
  ])
  const database = openDatabase(config)
  try {
    await migrate(database)
    if (parsed.kind === 'migrate') {
      print({ migrated: true }, parsed.json)
      return 0
    }
    const services = createServices({
      database,
      clock: systemClock,
      masterKey: loadMasterKey(config),
      publicURL: config.publicURL,
      destinations: new DestinationPolicy(config.chatbotURLAllow),
      files: fileStorage(config),
    })
    const input = parsed.command.stdin ? await readLine() : ''
    // A worker number for the IDs of the rows it creates, given back when the database closes.
    if (!parsed.command.readOnly) await database.ids.lease()
    const result = await parsed.command.run({ services, actor: cliActor() }, parsed.options, input)
    print(result, parsed.json)
    if ('webhookURL' in result && !process.env.PUBLIC_URL) {
      // The URL is only right if the server listens where this shell's HOST and PORT say.
      process.stderr.write(
        `note: webhookURL is built from HOST and PORT (${config.publicURL}): set the server's PUBLIC_URL, or its HOST and PORT, if it listens elsewhere\n`,
      )
    }
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
