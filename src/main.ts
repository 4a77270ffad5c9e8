import { withoutPretenuring } from './lib/pretenuring.js'
import { holdStartUpMemory } from './lib/start-up-memory.js'

// The server's modules are imported only once start-up's memory is held: an ES module graph is
// loaded and parsed in full before any module in it runs, and loading is most of start-up.
withoutPretenuring()
const startUpMemory = holdStartUpMemory()
const { serve } = await import('./server.js')
await serve()
startUpMemory.release()
