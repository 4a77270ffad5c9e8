import type { ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawnChild } from '../support/children.js'

/**
 * Debian's HAProxy in front of the instances, as an operator runs it: round robin, an instance
 * taken out while /healthz does not answer, WebSockets tunnelled, and a request whose connection
 * failed (an instance just killed) tried on another.
 */
export async function startHAProxy(
  directory: string,
  port: number,
  backends: number[],
): Promise<{ url: string; child: ChildProcess }> {
  const config = [
    'global',
    '  maxconn 4000',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout tunnel 1h',
    '  retries 3',
    '  option redispatch',
    '  retry-on conn-failure empty-response',
    'frontend parley',
    `  bind 127.0.0.1:${port}`,
    '  default_backend instances',
    'backend instances',
    '  balance roundrobin',
    '  option httpchk GET /healthz',
    '  default-server inter 300ms fall 2 rise 1',
    ...backends.map((backend, i) => `  server parley${i} 127.0.0.1:${backend} check`),
  ]
  const path = join(directory, 'haproxy.cfg')
  writeFileSync(path, `${config.join('\n')}\n`)
  const child = spawnChild('haproxy', ['-db', '-f', path], { stdio: ['ignore', 'ignore', 'pipe'] })
  const url = `http://127.0.0.1:${port}`
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}`)
    const up = await fetch(`${url}/healthz`).then(
      (response) => response.status === 200,
      () => false,
    )
    if (up) return { url, child }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('haproxy did not start')
}
