import { createRequire } from 'node:module'

/*
 * Node's HTTP modules, loaded with require(). Since Node 22, `node:http` carries lazy getters
 * (WebSocket, CloseEvent, MessageEvent, from the bundled undici); an ES module import builds the
 * module's namespace by reading every export, which loads undici, zlib and web streams: 13 MB of
 * idle memory a server that never touches them pays for nothing (docs/benchmarks.md, start-up). require()
 * leaves the getters alone. Biome's noRestrictedImports keeps `import ... from 'node:http'` out.
 */
const require = createRequire(import.meta.url)

export const http: typeof import('node:http') = require('node:http')
export const https: typeof import('node:https') = require('node:https')
