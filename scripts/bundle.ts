import { rmSync, writeFileSync } from 'node:fs'
import { build } from 'esbuild'

// `npm start` runs the server bundled (dist/bundle/server.js, which dist/main.js imports): Node
// then reads and compiles a few files instead of finding, reading and linking the 800 modules the
// server and its packages are made of, half of its start-up (docs/benchmarks.md, start-up). The bundle is
// made from tsc's output, so it runs the code the tests and the CLI run.

/**
 * Left in node_modules and loaded as they are: the SQLite driver (a native module), and what
 * waits for the request that needs it (test/integration/lazy-loading.test.ts), which inside the bundle would
 * be read and compiled at start with everything else.
 */
const OUTSIDE_THE_BUNDLE = [
  'better-sqlite3-node20',
  'pg',
  'ioredis',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  'yaml',
  'prom-client',
  '@fastify/send',
  'jose',
  '@aws-sdk/*',
  'sharp',
  'file-type',
  'nodemailer',
  'mailparser',
  'imapflow',
  'smtp-server',
  '@fastify/ajv-compiler',
  'ajv',
  'tsx',
]

/**
 * The largest packages are entries too, so each is split into a file of its own: V8 parses a file
 * in one go, and malloc keeps what the largest parse took (one 3.4 MB file left Node 24 idle at
 * 104 MB; files of at most 0.7 MB, at 92 MB).
 */
const CHUNKED = ['kysely', 'zod', 'fastify']

// Chunks are named by their content: the last build's would stay beside this one's.
rmSync('dist/bundle', { recursive: true, force: true })
const result = await build({
  entryPoints: { server: 'dist/server.js', ...Object.fromEntries(CHUNKED.map((name) => [name, name])) },
  outdir: 'dist/bundle',
  splitting: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: OUTSIDE_THE_BUNDLE,
  // CommonJS packages inside an ES module bundle call require() for Node's own modules.
  banner: {
    js: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);",
  },
  // Without comments and blank space the files are ASCII: a file with one other character (in a
  // comment) is held by V8 as UTF-16, twice its size. Names are kept, for stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'linked',
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
})
// What went into the bundle (test/integration/lazy-loading.test.ts reads it).
writeFileSync('dist/bundle/meta.json', JSON.stringify(result.metafile))
