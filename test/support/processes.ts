import type { ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { LOCAL_BOTS_ALLOWED, send } from './app.js'
import { spawnChild } from './children.js'

export { freePort } from './ports.js'

// Parley's own entry points run as users run them: the built CLI and server, in child processes.

export interface CLIResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs the built CLI; `input` is its standard input (closed after it). */
export function runCLI(
  args: string[],
  env: Record<string, string | undefined>,
  input = '',
): Promise<CLIResult> {
  const child = spawnChild(process.execPath, ['dist/cli/main.js', ...args], {
    env: { PATH: process.env.PATH, ...LOCAL_BOTS_ALLOWED, ...env },
  })
  child.stdin?.end(input)
  return collectOutput(child).then(({ code, output, errors }) => ({
    code: code ?? 1,
    stdout: output,
    stderr: errors,
  }))
}

/** What a child printed, once it has exited. */
export function collectOutput(child: ChildProcess) {
  let output = ''
  let errors = ''
  child.stdout?.on('data', (chunk) => {
    output += chunk
  })
  child.stderr?.on('data', (chunk) => {
    errors += chunk
  })
  return new Promise<{ code: number | null; output: string; errors: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, output, errors })),
  )
}

/** The JSON object a `--json` command printed; fails unless stdout is exactly one line. */
export async function runCLIJSON(args: string[], env: Record<string, string | undefined>) {
  const result = await runCLI([...args, '--json'], env)
  const lines = result.stdout.split('\n')
  if (result.code !== 0 || lines.length !== 2 || lines[1] !== '') {
    throw new Error(`parley ${args.join(' ')} failed (${result.code}): ${result.stdout}${result.stderr}`)
  }
  // biome-ignore lint/suspicious/noExplicitAny: CLI output is asserted field by field
  return JSON.parse(lines[0] as string) as any
}

export interface ServerProcess {
  child: ChildProcess
  url: string
  /** Every stdout line so far (JSON log lines). */
  lines: string[]
  /** Its exit code, once it has exited and everything it printed has been read. */
  exited: Promise<number | null>
}

/** Starts `node dist/main.js` (after `nodeArgs`) on a free port and waits until it listens. */
export function startServerProcess(
  env: Record<string, string | undefined>,
  nodeArgs: string[] = [],
): Promise<ServerProcess> {
  const child = spawnChild(process.execPath, [...nodeArgs, 'dist/main.js'], {
    env: { PATH: process.env.PATH, PORT: '0', HOST: '127.0.0.1', ...LOCAL_BOTS_ALLOWED, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  // 'close', not 'exit': it comes after the child's output ends, so `lines` is complete by then.
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  return new Promise((resolve, reject) => {
    let stderr = ''
    child.stderr?.on('data', (chunk) => {
      stderr += chunk
    })
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      lines.push(line)
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)
      if (match) resolve({ child, url: match[1] as string, lines, exited })
    })
    void exited.then((code) => reject(new Error(`server exited with ${code} before listening: ${stderr}`)))
  })
}

/**
 * Starts redis-server on `port`, without persistence (`more`: settings of its own, e.g. a cluster
 * node's), and resolves once it accepts connections.
 */
export async function startRedis(port: number, more: string[] = []): Promise<ChildProcess> {
  const child = spawnChild(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...more],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) resolve()
    })
    child.on('exit', (code) => reject(new Error(`redis-server exited with ${code}`)))
  })
  return child
}

export async function stopRedis(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.on('exit', resolve))
  child.kill('SIGKILL')
  await exited
}

/** Polls until the instance reports ready (database and Redis), for up to `ms`. */
export async function untilReady(instance: ServerProcess, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    const reply = await send(`${instance.url}/readyz`, { method: 'GET' }).catch(() => undefined)
    if (reply?.status === 200) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`${instance.url} not ready`)
}
