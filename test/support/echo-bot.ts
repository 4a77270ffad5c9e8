import { createInterface } from 'node:readline'
import { spawnChild } from './children.js'

/**
 * `examples/echo-bot` as users run it: its own process on `port`, calling Parley's webhook URL
 * with the chatbot's secret key. Resolves once it listens.
 */
export async function startEchoBot(options: { port: number; webhookURL: string; secretKey: string }) {
  const bot = spawnChild(process.execPath, ['examples/echo-bot/index.mjs'], {
    env: {
      PATH: process.env.PATH,
      PORT: String(options.port),
      PARLEY_WEBHOOK_URL: options.webhookURL,
      SECRET_KEY: options.secretKey,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise<void>((resolve, reject) => {
    bot.once('exit', (code) => reject(new Error(`echo bot exited with ${code}`)))
    createInterface({ input: bot.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (line.includes('listening')) resolve()
    })
  })
  return { stop: () => bot.kill() }
}
