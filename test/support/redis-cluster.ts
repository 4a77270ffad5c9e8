import { type ChildProcess, execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Redis } from 'ioredis'
import { freePort, startRedis, stopRedis } from './processes.js'

// A Redis Cluster of a test's own: three masters (no replicas) on free loopback ports, made with
// `redis-cli --cluster create`; every process it started is killed by stop().

interface Node {
  port: number
  busPort: number
  process: ChildProcess | undefined
}

export class RedisCluster {
  private constructor(
    private readonly nodes: Node[],
    private readonly dir: string,
  ) {}

  static async start(masters = 3): Promise<RedisCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'parley-redis-cluster-'))
    const nodes: Node[] = []
    for (let i = 0; i < masters; i++)
      nodes.push({ port: await freePort(), busPort: await freePort(), process: undefined })
    const cluster = new RedisCluster(nodes, dir)
    try {
      for (const node of nodes) await cluster.startNode(node)
      // It joins the nodes and exits by itself.
      const addresses = nodes.map((node) => `127.0.0.1:${node.port}`)
      await promisify(execFile)('redis-cli', [
        '--cluster',
        'create',
        ...addresses,
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ])
      await cluster.untilHealthy()
    } catch (error) {
      await cluster.stop()
      throw error
    }
    return cluster
  }

  /** REDIS_URL for Parley: every node as a seed. */
  get url(): string {
    return `redis+cluster://${this.nodes.map((node) => `127.0.0.1:${node.port}`).join(',')}`
  }

  /** Kills node `index` and starts it again on its port; it keeps its slots (nodes.conf), not its data. */
  async restart(index: number): Promise<void> {
    const node = this.nodes[index] as Node
    if (node.process) await stopRedis(node.process)
    node.process = undefined
    await this.startNode(node)
    await this.untilHealthy()
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.process && stopRedis(node.process)))
    for (const node of this.nodes) node.process = undefined
    rmSync(this.dir, { recursive: true, force: true })
  }

  private async startNode(node: Node): Promise<void> {
    node.process = await startRedis(node.port, [
      '--cluster-enabled',
      'yes',
      '--cluster-port',
      String(node.busPort),
      '--cluster-config-file',
      join(this.dir, `nodes-${node.port}.conf`),
      '--cluster-node-timeout',
      '2000',
      '--dir',
      this.dir,
    ])
  }

  /** Every node sees the cluster whole (polled: this runs in hooks too, where expect.poll cannot). */
  private async untilHealthy(ms = 30_000): Promise<void> {
    const deadline = Date.now() + ms
    while (Date.now() < deadline) {
      const states = await Promise.all(this.nodes.map((node) => clusterInfo(node.port)))
      if (states.every((info) => info.includes('cluster_state:ok'))) return
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error('the Redis Cluster did not become whole')
  }
}

/** `CLUSTER INFO` of the node on `port` ('' if it does not answer). */
async function clusterInfo(port: number): Promise<string> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null })
  client.on('error', () => {})
  try {
    await client.connect()
    return String(await client.cluster('INFO'))
  } catch {
    return ''
  } finally {
    client.disconnect()
  }
}
