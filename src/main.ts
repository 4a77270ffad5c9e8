import { holdYoungGeneration } from './lib/young-generation.js'

// The server's modules are imported only once the young generation is held: an ES module graph is
// loaded and parsed in full before any module in it runs, and loading is most of start-up.
const youngGeneration = holdYoungGeneration()
const { serve } = await import('./server.js')
await serve()
youngGeneration.release()
