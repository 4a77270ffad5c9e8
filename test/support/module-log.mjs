// Test-only: `node --import ./test/support/module-log.mjs dist/main.js` writes, as the process
// exits, every module it loaded (ES modules seen by the loader, CommonJS ones in require's cache,
// Node's own as `node:internal/...`) to the file named by MODULE_LOG, one path a line, and V8's
// young generation's size as `young-generation <bytes>`. Production never loads this file.
import { writeFileSync } from 'node:fs'
import { createRequire, register } from 'node:module'
import { fileURLToPath } from 'node:url'
import { getHeapSpaceStatistics } from 'node:v8'
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
  for (const entry of process.moduleLoadList)
    if (entry.startsWith('NativeModule ')) loaded.add(`node:${entry.slice(13)}`)
  const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')
  loaded.add(`young-generation ${young?.space_size}`)
  writeFileSync(process.env.MODULE_LOG ?? 'modules.log', [...loaded].join('\n'))
})
