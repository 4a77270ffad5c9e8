import type { ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { send } from '../support/app.js'
import {
  freePort,
  runCLIJSON,
  type ServerProcess,
  startRedis,
  startServerProcess,
  stopRedis,
} from '../support/processes.js'
import { startS3 } from '../support/s3.js'
import { startHAProxy } from './haproxy.js'
import { PostgresCluster } from './postgres-cluster.js'
import { type Receiver, startReceiver } from './receiver.js'

/**
 * Everything the soak runs on, all its own: a PostgreSQL cluster, redis-server, an S3-compatible
 * store (s3rver), Parley instances behind HAProxy, a chatbot and an event endpoint. Each part can
 * be broken and mended; a process that ends without being told to is counted as died.
 */
export class SoakDeployment {
  readonly instances: ServerProcess[] = []
  /** What died without being killed on purpose, as "name: exit code". */
  readonly died: string[] = []
  private readonly killing = new Set<ChildProcess>()
  private redis: ChildProcess | undefined
  private haproxy: ChildProcess | undefined
  serverKey = ''

  private constructor(
    readonly directory: string,
    readonly cluster: PostgresCluster,
    readonly s3: Awaited<ReturnType<typeof startS3>>,
    readonly chatbot: Receiver,
    readonly endpoint: Receiver,
    private readonly ports: { redis: number; proxy: number; instances: number[] },
    readonly env: Record<string, string>,
  ) {}

  static async start(instances: number): Promise<SoakDeployment> {
    const directory = mkdtempSync(join(tmpdir(), 'parley-soak-'))
    const cluster = await PostgresCluster.create()
    await cluster.query('create database parley')
    const [s3, chatbot, endpoint] = await Promise.all([startS3(), startReceiver(), startReceiver()])
    const ports = { redis: await freePort(), proxy: await freePort(), instances: [] as number[] }
    for (let i = 0; i < instances; i++) ports.instances.push(await freePort())
    const env = {
      DATABASE_URL: cluster.url.replace(/\/postgres$/, '/parley'),
      REDIS_URL: `redis://127.0.0.1:${ports.redis}`,
      PARLEY_MASTER_KEY: randomBytes(32).toString('base64'),
      S3_BUCKET: s3.settings.bucket,
      S3_ENDPOINT: s3.settings.endpoint as string,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      // The load uploads far faster than a person, and never sends what it uploads: the quotas
      // (docs/reference/quotas.md) are lifted, so that every upload reaches the store.
      UPLOAD_RATE_PER_MINUTE: '100000',
      UPLOAD_USER_UNSENT_FILES: '100000',
      UPLOAD_ORG_UNSENT_FILES: '10000000',
    }
    const deployment = new SoakDeployment(directory, cluster, s3, chatbot, endpoint, ports, env)
    await deployment.startRedis()
    for (let i = 0; i < instances; i++) await deployment.startInstance(i)
    const proxy = await startHAProxy(directory, ports.proxy, ports.instances)
    deployment.haproxy = deployment.watch('haproxy', proxy.child)
    await deployment.setUp()
    return deployment
  }

  /** HAProxy's address: what clients use, and what links name (PUBLIC_URL). */
  get url(): string {
    return `http://127.0.0.1:${this.ports.proxy}`
  }

  /** The organization, its server key, its chatbot and an event endpoint taking message.new. */
  private async setUp(): Promise<void> {
    const env = this.instanceEnv(0)
    const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Soak'], env)
    this.serverKey = (await runCLIJSON(['server-key', 'create', '--org', organizationID], env)).serverKey
    await runCLIJSON(
      ['chatbot', 'create', '--org', organizationID, '--name', 'Bot', '--url', this.chatbot.url],
      env,
    )
    await runCLIJSON(
      [
        'event-endpoint',
        'create',
        '--org',
        organizationID,
        '--url',
        this.endpoint.url,
        '--events',
        'message.new',
      ],
      env,
    )
  }

  private instanceEnv(index: number): Record<string, string> {
    return {
      ...this.env,
      DATA_DIR: join(this.directory, `instance-${index}`),
      PORT: String(this.ports.instances[index]),
      PUBLIC_URL: this.url,
    }
  }

  async startInstance(index: number): Promise<void> {
    const instance = await startServerProcess(this.instanceEnv(index))
    this.watch(`instance ${index}`, instance.child)
    this.instances[index] = instance
  }

  /** Starts again each instance that died (not one killed on purpose and not started yet). */
  async restartDead(): Promise<void> {
    for (const [index, instance] of this.instances.entries())
      if (instance.child.exitCode !== null && !this.killing.has(instance.child)) {
        this.killing.add(instance.child)
        await this.startInstance(index).catch(() => undefined)
      }
  }

  async killInstance(index: number): Promise<void> {
    const instance = this.instances[index] as ServerProcess
    await this.kill(instance.child, 'SIGKILL')
  }

  async startRedis(): Promise<void> {
    this.redis = this.watch('redis', await startRedis(this.ports.redis))
  }

  async killRedis(): Promise<void> {
    if (this.redis) {
      this.killing.add(this.redis)
      await stopRedis(this.redis)
    }
  }

  /** Every instance answers /readyz 200 (asked directly, not through HAProxy). */
  async allReady(): Promise<boolean> {
    const answers = await Promise.all(
      this.instances.map((instance) =>
        send(`${instance.url}/readyz`, { method: 'GET' }).then(
          (reply) => reply.status === 200,
          () => false,
        ),
      ),
    )
    return answers.every(Boolean)
  }

  private watch(name: string, child: ChildProcess): ChildProcess {
    child.once('exit', (code, signal) => {
      if (!this.killing.has(child)) this.died.push(`${name}: ${code ?? signal}`)
    })
    return child
  }

  private async kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
    this.killing.add(child)
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill(signal)
    await exited
  }

  async stop(): Promise<void> {
    const children = [...this.instances.map((instance) => instance.child), this.haproxy].filter(
      (child): child is ChildProcess => child !== undefined,
    )
    await Promise.all(children.map((child) => this.kill(child, 'SIGTERM')))
    await this.killRedis()
    await Promise.all([this.s3.stop(), this.chatbot.close(), this.endpoint.close(), this.cluster.remove()])
    rmSync(this.directory, { recursive: true, force: true })
  }
}
