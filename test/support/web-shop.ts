import { createInterface } from 'node:readline'
import { spawnChild } from './children.js'

/**
 * `examples/web-shop` as users run it: its own process on `port`, asking `parleyURL` for tickets
 * with `serverKey`. Resolves once it listens; `url` is the shop's page.
 */
export async function startWebShop(options: {
  port: number
  parleyURL: string
  serverKey: string
  env?: Record<string, string>
}) {
  const shop = spawnChild(process.execPath, ['examples/web-shop/server.mjs'], {
    env: {
      PATH: process.env.PATH,
      PORT: String(options.port),
      PARLEY_URL: options.parleyURL,
      SERVER_KEY: options.serverKey,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise<void>((resolve, reject) => {
    shop.once('exit', (code) => reject(new Error(`web shop exited with ${code}`)))
    createInterface({ input: shop.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (line.includes('listening')) resolve()
    })
  })
  return { url: `http://127.0.0.1:${options.port}`, stop: () => shop.kill() }
}
