import { type ChildProcess, execFileSync } from 'node:child_process'
import { chownSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import pg from 'pg'
import { spawnChild } from '../support/children.js'
import { freePort } from '../support/processes.js'

const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin'

/**
 * A PostgreSQL cluster of its own (initdb, then `postgres` as a child process on a free port), so
 * that it can be restarted, or have its connections terminated, without disturbing anything else.
 * PostgreSQL refuses to run as root: as root, it runs as the `postgres` user.
 */
export class PostgresCluster {
  private server: ChildProcess | undefined
  private stopping = false
  /** How often the server ended without being asked to. */
  unexpectedExits = 0

  private constructor(
    private readonly directory: string,
    readonly port: number,
    private readonly owner: { uid: number; gid: number } | undefined,
  ) {}

  static async create(): Promise<PostgresCluster> {
    const directory = mkdtempSync(join(tmpdir(), 'parley-soak-pg-'))
    const owner = process.getuid?.() === 0 ? userIDs('postgres') : undefined
    if (owner) chownSync(directory, owner.uid, owner.gid)
    execFileSync(`${BIN}/initdb`, ['-D', join(directory, 'data'), '-U', 'postgres', '--auth=trust', '-N'], {
      stdio: 'ignore',
      ...owner,
    })
    const cluster = new PostgresCluster(directory, await freePort(), owner)
    await cluster.start()
    return cluster
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`
  }

  /** Starts the server and resolves once it accepts connections. */
  async start(): Promise<void> {
    const settings = ['listen_addresses=127.0.0.1', `unix_socket_directories=${this.directory}`]
    // Durability is not under test here; without fsync the cluster does not slow the machine down.
    settings.push('fsync=off', 'max_connections=300')
    const server = spawnChild(
      `${BIN}/postgres`,
      ['-D', join(this.directory, 'data'), '-p', String(this.port), ...settings.flatMap((s) => ['-c', s])],
      { stdio: ['ignore', 'ignore', 'pipe'], ...this.owner },
    )
    this.server = server
    server.once('exit', () => {
      if (!this.stopping) this.unexpectedExits++
    })
    await new Promise<void>((resolve, reject) => {
      server.once('exit', (code) => reject(new Error(`postgres exited with ${code}`)))
      createInterface({ input: server.stderr as NodeJS.ReadableStream }).on('line', (line) => {
        if (line.includes('ready to accept connections')) resolve()
      })
    })
  }

  /** A fast shutdown (every session ended, as in a restart or failover), then a start. */
  async restart(): Promise<void> {
    await this.stop('SIGINT')
    await this.start()
  }

  /** Ends every connection but the caller's, as pg_terminate_backend does for an operator. */
  async terminateConnections(): Promise<number> {
    const rows = await this.query<{ pid: number }>(
      "select pg_terminate_backend(pid) as pid from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()",
    )
    return rows.length
  }

  async query<T extends pg.QueryResultRow>(text: string, values: unknown[] = [], database = 'postgres') {
    const client = new pg.Client({ connectionString: this.url.replace(/\/postgres$/, `/${database}`) })
    client.on('error', () => {})
    await client.connect()
    try {
      return (await client.query<T>(text, values)).rows
    } finally {
      await client.end()
    }
  }

  async stop(signal: NodeJS.Signals = 'SIGINT'): Promise<void> {
    const server = this.server
    if (!server || server.exitCode !== null || server.signalCode !== null) return
    const exited = new Promise((resolve) => server.once('exit', resolve))
    this.stopping = true
    server.kill(signal)
    await exited
    this.stopping = false
  }

  async remove(): Promise<void> {
    await this.stop('SIGQUIT')
    rmSync(this.directory, { recursive: true, force: true })
  }
}

function userIDs(name: string): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8' }).trim())
  return { uid: id('-u'), gid: id('-g') }
}
