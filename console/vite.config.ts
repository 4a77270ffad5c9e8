import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

const here = fileURLToPath(new URL('.', import.meta.url))
// `npm run console:dev` proxies the API to a Parley started with `npm start`.
const parley = process.env.PARLEY_URL ?? 'http://127.0.0.1:8080'

export default defineConfig({
  root: here,
  base: '/console/',
  plugins: [react()],
  build: { outDir: `${here}../dist/console`, emptyOutDir: true, chunkSizeWarningLimit: 1024 },
  server: {
    proxy: {
      '/api': parley,
      '/connect': { target: parley.replace(/^http/, 'ws'), ws: true },
    },
  },
})
