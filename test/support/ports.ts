import { once } from 'node:events'
import { type AddressInfo, createServer } from 'node:net'

/** A loopback port free right now (for a process that must be told its port before it starts). */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}
