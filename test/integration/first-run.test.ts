import type { Readable } from 'node:stream'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { firstRunNotes } from '../../src/domain/agents/first-run.js'
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../support/databases.js'
import { runCLI, runCLIJSON, type ServerProcess, startServerProcess } from '../support/processes.js'

// A first run: `npm start` says where the console is and, while nobody can sign in to it, the
// command that makes the first admin; the CLI says which server its URLs are for.

const URL = 'http://127.0.0.1:8080'

test('the notes: the console, and the first admin in the one organization there is', () => {
  const console = `The console is at ${URL}/console/ (the API reference at ${URL}/docs).`
  expect(firstRunNotes({ hasAdmin: true, organizationIDs: [] }, URL)).toEqual([console])
  const [, one] = firstRunNotes({ hasAdmin: false, organizationIDs: ['42'] }, URL)
  expect(one).toContain('agent create --org 42 --email you@example.com')
  expect(one).not.toContain('org create')
  const [, none] = firstRunNotes({ hasAdmin: false, organizationIDs: [] }, URL)
  expect(none).toContain('org create --name "Your company"')
  expect(none).toContain('agent create --org <organizationID>')
  const [, several] = firstRunNotes({ hasAdmin: false, organizationIDs: ['42', '43'] }, URL)
  expect(several).toContain('org list')
})

/** The message of the first log line that holds `text`, once the server has logged it. */
async function logged(server: ServerProcess, text: string): Promise<string> {
  const stdout = server.child.stdout as Readable
  for (;;) {
    const line = server.lines.find((l) => l.includes(text))
    if (line) return (JSON.parse(line) as { msg: string }).msg
    if (stdout.closed)
      throw new Error(`the server ended without logging "${text}":\n${server.lines.join('\n')}`)
    await new Promise<void>((resolve) => {
      const next = () => {
        stdout.off('data', next)
        stdout.off('close', next)
        resolve()
      }
      stdout.on('data', next)
      stdout.on('close', next)
    })
  }
}

describeEachDatabase('first run', (dialect) => {
  let testDatabase: TestDatabase
  const servers: ServerProcess[] = []
  beforeAll(async () => {
    testDatabase = await createTestDatabase(dialect)
  })
  afterAll(async () => {
    for (const server of servers) {
      server.child.kill('SIGTERM')
      await server.exited
    }
    await testDatabase?.drop()
  })
  const start = async (env: Record<string, string> = {}) => {
    const server = await startServerProcess({ ...testDatabase.env, ...env })
    servers.push(server)
    return server
  }

  test('npm start names the console, and the first admin until there is one', async () => {
    const first = await start()
    expect(await logged(first, 'The console is at')).toContain(`${first.url}/console/`)
    expect(await logged(first, 'No admin yet')).toContain('org create')

    const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Acme'], testDatabase.env)
    const second = await start()
    const hint = await logged(second, 'No admin yet')
    expect(hint).toContain(`agent create --org ${organizationID} --email you@example.com`)

    // The command as printed makes an admin who can sign in.
    const created = await runCLI(
      [
        'agent',
        'create',
        '--org',
        organizationID,
        '--email',
        'you@example.com',
        '--name',
        'You',
        '--role',
        'admin',
      ],
      testDatabase.env,
      'a long passphrase\n',
    )
    expect(created.code, created.stderr).toBe(0)
    const third = await start()
    await logged(third, 'The console is at')
    third.child.kill('SIGTERM')
    await third.exited // every line it logged is read
    expect(third.lines.join('\n')).not.toContain('No admin yet')
  }, 90_000) // five processes one after another: 3 s alone, over 20 s on a busy machine

  test('the CLI says which server the webhook URL it prints is for', async () => {
    const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Bots'], testDatabase.env)
    const args = [
      'chatbot',
      'create',
      '--org',
      organizationID,
      '--name',
      'Echo',
      '--url',
      'http://127.0.0.1:3000/',
    ]
    const guessed = await runCLI([...args, '--json'], { ...testDatabase.env, PORT: '9090' })
    expect(JSON.parse(guessed.stdout).webhookURL).toMatch(/^http:\/\/127\.0\.0\.1:9090\//)
    expect(guessed.stderr).toContain('webhookURL is built from HOST and PORT (http://127.0.0.1:9090)')
    const told = await runCLI([...args, '--json'], {
      ...testDatabase.env,
      PUBLIC_URL: 'https://chat.example.com',
    })
    expect(JSON.parse(told.stdout).webhookURL).toMatch(/^https:\/\/chat\.example\.com\//)
    expect(told.stderr).toBe('')
    expect((await runCLI(['--help'], {})).stdout).toContain('PUBLIC_URL (else\nHOST and PORT)')
  }, 90_000) // three CLI runs one after another: 30 s is too little on a busy machine
})
