import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SDK_DIR } from './taptalk-sdk.js'

// A customer's web page using the TapTalk.io web SDK as published: its three files served from
// node_modules as they are, and loaded by a small CommonJS loader (the package has no browser
// build; a bundler would do the same). The page records what the SDK's listeners hear in
// `window.heard`. It is served from its own origin, so every call to Parley is cross-origin.

const PAGE = `<!doctype html><meta charset="utf-8"><title>SDK</title><script>
window.heard = []
const copy = (value) => JSON.parse(JSON.stringify(value ?? null))
window.loaded = (async () => {
  const text = (path) => fetch(path).then((r) => r.text())
  const [index, cryptoJS, md5] = await Promise.all(['index.js', 'lib/crypto-js.js', 'lib/md5.js'].map((f) => text('/sdk/' + f)))
  const run = (source, require) => {
    const module = { exports: {} }
    new Function('module', 'exports', 'require', source).call(module.exports, module, module.exports, require)
    return module.exports
  }
  const libs = { './lib/crypto-js': run(cryptoJS), './lib/md5': run(md5) }
  window.sdk = run(index, (name) => libs[name])
})()
// A callback object of the SDK's shape, as a promise of what it was called with.
window.callback = () => {
  let callback
  const promise = new Promise((resolve) => {
    callback = { onSuccess: (...a) => resolve({ ok: copy(a) }), onError: (...a) => resolve({ error: copy(a) }) }
  })
  return { callback, promise }
}
// What the app listens to; the SDK drops its listeners when it logs out.
window.listen = () => {
  sdk.tapCoreChatRoomManager.addMessageListener({
    onReceiveNewMessage: (m) => heard.push({ kind: 'new', message: copy(m) }),
    onReceiveUpdateMessage: (m) => heard.push({ kind: 'update', message: copy(m) }),
  })
  sdk.tapCoreChatRoomManager.addRoomStatusListener({
    onReceiveStartTyping: (roomID, user) => heard.push({ kind: 'typing', roomID, user: copy(user) }),
    onReceiveStopTyping: (roomID, user) => heard.push({ kind: 'stopTyping', roomID, user: copy(user) }),
    onReceiveOnlineStatus: () => {},
  })
  sdk.taptalk.addTapListener({ onTapTalkRefreshTokenExpired: () => heard.push({ kind: 'refreshTokenExpired' }) })
}
</script>`

export async function servePage(): Promise<{ url: string; server: Server }> {
  const files: Record<string, string> = {}
  for (const file of ['index.js', 'lib/crypto-js.js', 'lib/md5.js'])
    files[`/sdk/${file}`] = readFileSync(`${SDK_DIR}${file}`, 'utf8')
  const server = createServer((request, response) => {
    const url = request.url ?? '/'
    const body = url === '/' ? PAGE : files[url]
    if (body === undefined) return void response.writeHead(404).end()
    response.writeHead(200, { 'content-type': url === '/' ? 'text/html' : 'text/javascript' }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server }
}
