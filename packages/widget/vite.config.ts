import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

const here = fileURLToPath(new URL('.', import.meta.url))

// One classic script (IIFE) with the client SDK inside: Parley serves it at GET /widget.js, and
// its only global is `ParleyWidget`.
export default defineConfig({
  build: {
    outDir: `${here}../../dist/widget`,
    emptyOutDir: true,
    target: 'es2020',
    lib: {
      entry: `${here}src/index.ts`,
      name: 'ParleyWidget',
      formats: ['iife'],
      fileName: () => 'widget.js',
    },
  },
})
