/**
 * Where Parley's Redis is (REDIS_URL): one server, `redis://` (or `rediss://`, TLS), or a
 * Redis Cluster by some of its nodes, `redis+cluster://[user:password@]host:port,host:port`
 * (or `rediss+cluster://`); the client learns the rest of the cluster from them.
 */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | {
      kind: 'cluster'
      nodes: { host: string; port: number }[]
      username: string | undefined
      password: string | undefined
      tls: boolean
    }

const CLUSTER = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#@]+)\/?$/

/** The target a REDIS_URL names, or undefined when it names none. */
export function redisTarget(value: string): RedisTarget | undefined {
  const cluster = CLUSTER.exec(value)
  if (!cluster) {
    const protocol = URL.parse(value)?.protocol
    return protocol === 'redis:' || protocol === 'rediss:' ? { kind: 'single', url: value } : undefined
  }
  const [, scheme, userInfo, hosts = ''] = cluster
  const nodes = hosts.split(',').map((host) => URL.parse(`redis://${host.trim()}`))
  if (nodes.some((node) => !node?.hostname || node.pathname !== '')) return undefined
  const [username, password] = (userInfo ?? '').split(/:(.*)/s, 2).map((part) => decodeURIComponent(part))
  return {
    kind: 'cluster',
    nodes: nodes.map((node) => ({
      host: (node as URL).hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number((node as URL).port || 6379),
    })),
    username: username || undefined,
    password: password || undefined,
    tls: scheme === 'rediss',
  }
}

export const isRedisURL = (value: string) => redisTarget(value) !== undefined
