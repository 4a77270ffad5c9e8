import { withoutPretenuring } from './lib/pretenuring.js'
import { holdStartUpMemory } from './lib/start-up-memory.js'

/**
 * The server and what it loads at start, bundled into one file by `npm run build`
 * (scripts/bundle.ts): one file to read and compile instead of 800 modules to find and link.
 */
const SERVER = './bundle/server.js'

// The server is imported only once start-up's memory is held: an ES module graph is loaded and
// parsed in full before any module in it runs, and loading is most of start-up.
withoutPretenuring()
const startUpMemory = holdStartUpMemory()
const { serve }: typeof import('./server.js') = await import(SERVER)
await serve()
startUpMemory.release()
