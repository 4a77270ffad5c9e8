import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { spawnChild } from '../support/children.js'
import { createTestDatabase, describeEachDatabase } from '../support/databases.js'
import { compareSample, type DocFile, parseDoc } from '../support/doc-blocks.js'
import { freePort, startServerProcess } from '../support/processes.js'

// Every shell block of README.md and docs/, run as a new user runs them: each file's blocks in
// order, pasted into one shell, against a fresh server started as the docs say
// (`CHATBOT_URL_ALLOW=127.0.0.1 npm start`) on a fresh database. Nothing in the text is changed:
// the blocks take the server's port from PORT, the echo bot's from BOT_PORT and the web shop's from
// SHOP_PORT, which the test sets to free ones. A block fails when a command fails, or when an
// answer is an error (HTTP 4xx/5xx, or an envelope whose status is not 200) unless the block is
// marked as showing errors; an answer printed without a line ending fails too (the next runs into
// it); and each printed sample must match what was printed before it (doc-blocks.ts says how).

/** The Markdown files whose blocks run: the README, then docs/ in path order. */
function docFiles(): string[] {
  const docs = readdirSync('docs', { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.md'))
    .map((path) => join('docs', path))
    .sort()
  return ['README.md', ...docs]
}

// Wraps curl (the blocks' only HTTP client) to keep each answer, its HTTP status and whether it
// went straight to the terminal; marks where each block and sample begins in the output.
const PRELUDE = String.raw`
__TOP=$(readlink /proc/$$/fd/1)
__block() { __BLOCK=$1; __ERRORS_SHOWN=$2; echo "block $1 $(stat -c %s "$__TOP")" >> "$__LOG/markers"; }
__sample() { echo "sample $1 $(stat -c %s "$__TOP")" >> "$__LOG/markers"; }
curl() {
  local answer rc=0 where=nested pid=$BASHPID
  answer=$(mktemp "$__LOG/answer.XXXXXX")
  command curl -D "$answer.headers" "$@" > "$answer.body" || rc=$?
  cat "$answer.body"
  [ "$(readlink /proc/$pid/fd/1)" = "$__TOP" ] && where=top
  printf '%s\n%s\n%s\n%s\n' "$__BLOCK" "$__ERRORS_SHOWN" "$where" "curl $*" > "$answer"
  return $rc
}
set -eo pipefail
`

function script(doc: DocFile): string {
  const blocks = doc.blocks.map((block) => `__block ${block.line} ${block.errors ? 1 : 0}\n${block.script}`)
  return `${PRELUDE}\n${blocks.join('\n')}\n__block end 0\n`
}

/** Runs a script in bash, in a process group of its own (killed at the end, with what it started). */
function bash(source: string, env: Record<string, string>, output: string) {
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const out = openSync(output, 'w')
    const child = spawnChild('bash', ['-c', source], { env, stdio: ['ignore', out, 'pipe'] })
    closeSync(out)
    let stderr = ''
    child.stderr?.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('exit', (code) => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL')
      } catch {
        // The group is gone already.
      }
      resolve({ code, stderr })
    })
  })
}

/** What went wrong with the answers curl printed: errors outside error blocks, missing newlines. */
function answerFailures(log: string): string[] {
  const failures: string[] = []
  const answers = readdirSync(log).filter((n) => /^answer\.\w+$/.test(n))
  const written = (name: string) => statSync(join(log, name)).mtimeMs
  for (const name of answers.sort((a, b) => written(a) - written(b))) {
    const [block, errorsShown, where, command] = readFileSync(join(log, name), 'utf8').split('\n')
    const body = readFileSync(join(log, `${name}.body`), 'utf8')
    const headers = readFileSync(join(log, `${name}.headers`), 'utf8')
      .trim()
      .split('\n')
    const http = Number(/^HTTP\/[\d.]+ (\d+)/.exec(headers.findLast((h) => h.startsWith('HTTP/')) ?? '')?.[1])
    let envelope: number | undefined
    try {
      envelope = (JSON.parse(body) as { status?: number }).status
    } catch {
      // Not JSON (a download, the webhook's plain text).
    }
    const error = http >= 400 || (typeof envelope === 'number' && envelope !== 200)
    const at = `block at line ${block}: ${command}`
    if (error && errorsShown !== '1') failures.push(`${at}\n  answered ${http}: ${body.slice(0, 300)}`)
    if (where === 'top' && body !== '' && !body.endsWith('\n')) {
      failures.push(
        `${at}\n  printed without a line ending, so the next answer runs into it: ${body.slice(0, 120)}`,
      )
    }
  }
  return failures
}

/** Each sample against what was printed between the marker before it and itself. */
function sampleFailures(doc: DocFile, log: string, output: string): string[] {
  const printed = readFileSync(output)
  const markers = readFileSync(join(log, 'markers'), 'utf8').trim().split('\n')
  const failures: string[] = []
  let from = 0
  let block = ''
  let reached = 0
  for (const marker of markers) {
    const [kind, id, offset] = marker.split(' ') as [string, string, string]
    if (kind === 'block') block = id
    else {
      reached++
      const sample = doc.samples[Number(id)] as (typeof doc.samples)[number]
      const text = printed.subarray(from, Number(offset)).toString('utf8')
      const why = compareSample(sample, text)
      if (why) failures.push(`block at line ${block}, sample ${sample.text.slice(0, 100)}\n  ${why}`)
    }
    from = Number(offset)
  }
  if (reached < doc.samples.length)
    failures.push(`only ${reached} of ${doc.samples.length} samples were reached`)
  return failures
}

test('the docs follow the block conventions, and have blocks to run', () => {
  const files = docFiles()
  const docs = files.map((file) => parseDoc(readFileSync(file, 'utf8')))
  expect(docs.reduce((n, doc) => n + doc.blocks.length, 0)).toBeGreaterThanOrEqual(10)
  for (const [i, file] of files.entries()) {
    const text = readFileSync(file, 'utf8')
    // Every fence that looks like a shell is one of the three kinds (a typo would skip a block).
    for (const fence of text.match(/^```(sh|bash|shell)\b.*$/gm) ?? []) {
      expect(fence, file).toMatch(/^```sh( skip| error)?$/)
    }
    for (const block of docs[i]?.blocks ?? []) {
      expect(block.script, `${file}:${block.line} starts a server`).not.toMatch(/npm start|node dist\/main/)
      expect(block.script, `${file}:${block.line} names a port`).not.toMatch(/127\.0\.0\.1:\d/)
      // A busy machine outlasts any fixed pause: a block waits for what it needs, in a loop.
      expect(block.script, `${file}:${block.line} sleeps for time`).not.toMatch(/^\s*sleep\b/m)
    }
  }
})

describeEachDatabase('the docs, pasted in order', (dialect) => {
  for (const file of docFiles()) {
    const doc = parseDoc(readFileSync(file, 'utf8'))
    if (doc.blocks.length === 0) continue
    test(`${file}: every block works, and prints what it shows`, async () => {
      const testDatabase = await createTestDatabase(dialect)
      const log = mkdtempSync(join(tmpdir(), 'parley-docs-'))
      const [port, botPort, shopPort] = [await freePort(), await freePort(), await freePort()]
      const env: Record<string, string> = {
        PATH: process.env.PATH as string,
        HOME: process.env.HOME ?? '/tmp',
        ...(testDatabase.env as Record<string, string>),
        PARLEY_MASTER_KEY: testDatabase.masterKey.toString('base64'),
        PORT: String(port),
        BOT_PORT: String(botPort),
        SHOP_PORT: String(shopPort),
      }
      const server = await startServerProcess({ ...env, CHATBOT_URL_ALLOW: '127.0.0.1' })
      try {
        const output = join(log, 'output')
        const { code, stderr } = await bash(script(doc), { ...env, __LOG: log }, output)
        const printed = readFileSync(output, 'utf8')
        const failures = [...answerFailures(log), ...sampleFailures(doc, log, output)]
        if (code !== 0) failures.unshift(`the shell stopped (exit ${code}):\n${stderr.slice(-1500)}`)
        expect(failures, `${failures.join('\n')}\n--- printed:\n${printed.slice(-4000)}`).toEqual([])
      } finally {
        server.child.kill('SIGTERM')
        await server.exited
        await testDatabase.drop()
        rmSync(log, { recursive: true, force: true })
      }
    }, 180_000)
  }
})
