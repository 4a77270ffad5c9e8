import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { spawnChild } from './support/children.js'
import { createTestDatabase, describeEachDatabase, type TestDatabase } from './support/databases.js'
import { freePort, type ServerProcess, startServerProcess } from './support/processes.js'

// The README's walk-throughs, run as a new user runs them: every `sh` block, in order, pasted into
// one shell, against a fresh server started as the README says (`CHATBOT_URL_ALLOW=127.0.0.1 npm
// start`). Blocks marked `<!-- readme-test: skip (why) -->` (installing, starting servers, the
// test suite itself) are left out. The only changes made to the text: the server's, the echo
// bot's and the web shop's ports are free ones instead of 8080, 3000 and 3001, and `set -eo
// pipefail` stops at the first failing command.

/** The `sh` blocks of the README, in order, but those marked to skip. */
function shellBlocks(markdown: string): string[] {
  const blocks: string[] = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue
    const end = lines.indexOf('```', i + 1)
    const marked = lines[i - 1]?.startsWith('<!-- readme-test: skip')
    if (!marked) blocks.push(lines.slice(i + 1, end).join('\n'))
    i = end
  }
  return blocks
}

/** Runs a script in bash; resolves with its exit code and output. */
function bash(script: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    // What a block leaves running in the background is killed with the file (setup-children.ts).
    const child = spawnChild('bash', ['-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout?.on('data', (chunk) => {
      output += chunk
    })
    child.stderr?.on('data', (chunk) => {
      output += chunk
    })
    child.on('exit', (code) => resolve({ code, output }))
  })
}

test('the README has walk-through blocks to run, and marks the ones it cannot', () => {
  const blocks = shellBlocks(readFileSync('README.md', 'utf8'))
  expect(blocks.length).toBeGreaterThanOrEqual(6)
  expect(blocks.join('\n')).not.toContain('npm start')
})

describeEachDatabase('the README, pasted in order', (dialect) => {
  let testDatabase: TestDatabase
  let server: ServerProcess
  let env: Record<string, string>
  let port: number

  beforeAll(async () => {
    testDatabase = await createTestDatabase(dialect)
    port = await freePort()
    env = {
      PATH: process.env.PATH as string,
      HOME: process.env.HOME ?? '/tmp',
      ...(testDatabase.env as Record<string, string>),
      PARLEY_MASTER_KEY: testDatabase.masterKey.toString('base64'),
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
    }
    server = await startServerProcess({ ...env, CHATBOT_URL_ALLOW: '127.0.0.1' })
  })
  afterAll(async () => {
    server?.child.kill('SIGTERM')
    await server?.exited
    await testDatabase?.drop()
  })

  test('every block works, and says what the README says it does', async () => {
    const [botPort, shopPort] = [await freePort(), await freePort()]
    const script = shellBlocks(readFileSync('README.md', 'utf8'))
      .join('\n')
      .replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`)
      .replaceAll('127.0.0.1:3000', `127.0.0.1:${botPort}`)
      .replaceAll('PORT=3000', `PORT=${botPort}`)
      .replaceAll('127.0.0.1:3001', `127.0.0.1:${shopPort}`)
      .replaceAll('PORT=3001', `PORT=${shopPort}`)
    const { code, output } = await bash(`set -eo pipefail\n${script}`, env)
    expect(code, output).toBe(0)
    // The walk-throughs' results, in the order they come.
    for (const expected of [
      '"serverKey":', // the server key, shown once
      '"ticket":', // a ticket for the backend's user
      "Param 'userAgent' is required", // a field that fails validation
      'Request headers are required (Server-Key)', // a missing key
      '"body":"Hi Bob"', // Alice's message
      '"body":"Your order has shipped"', // the server API's notice from the system sender
      '"fileName":"invoice.pdf"', // the file Alice uploaded and sent
      'download: 200 application/pdf', // and its signed link
      'case is not handled by the chatbot', // the bot's message after the handover
      'secret key is invalid', // a wrong Secret-Key
      'You said: hello', // the echo bot's answer
      '"interactive":{"type":"button_reply"', // the visitor chose one of the echo bot's quick replies
      'log in first', // the web shop gives no ticket without a login
      '"xcUserID":"shop:Grace Hopper"', // and a working one with
      '"status":"assigned"', // Ada took the case
      '"status":"closed"', // and closed it
      '"rating":{"rating":5,"note":"Quick and kind, thanks Ada"', // the visitor's rating
    ]) {
      expect(output, output).toContain(expected)
    }
    expect(output).not.toContain('internal server error')
    expect(output).not.toMatch(/"status":5\d\d/)
  }, 120_000)
})
