// Test-only: `node --import ./test/support/module-log.mjs dist/main.js` writes, as the process
// exits, every module it loaded (ES modules seen by the loader, CommonJS ones in require's cache)
// to the file named by MODULE_LOG, one path a line. Production never loads this file.
import { writeFileSync } from 'node:fs'
import { createRequire, register } from 'node:module'
import { fileURLToPath } from 'node:url'
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads'

const hooks = `
let port
export function initialize(data) { port = data.port }
export async function load(url, context, next) {
  port.postMessage(url)
  return next(url, context)
}`
const { port1, port2 } = new MessageChannel()
register(`data:text/javascript,${encodeURIComponent(hooks)}`, import.meta.url, {
  data: { port: port2 },
  transferList: [port2],
})
port1.unref()

const loaded = new Set()
process.on('exit', () => {
  for (let message = receiveMessageOnPort(port1); message; message = receiveMessageOnPort(port1))
    loaded.add(message.message.startsWith('file:') ? fileURLToPath(message.message) : message.message)
  for (const path of Object.keys(createRequire(import.meta.url).cache)) loaded.add(path)
  writeFileSync(process.env.MODULE_LOG ?? 'modules.log', [...loaded].join('\n'))
})
