import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { AppError } from '../../errors/app-error.js'

/** Where `npm run build` (run at install time) puts the console: the same path from src/ and dist/. */
export const CONSOLE_DIR = fileURLToPath(new URL('../../../dist/console/', import.meta.url))
const PREFIX = '/console/'
/** The app's own paths are words and IDs; a last segment with an extension names a file. */
const LOOKS_LIKE_A_FILE = /\/[^/]+\.[a-z0-9]+$/i

/**
 * The console can only reach this origin: the agent API and /connect, nothing else (a message's
 * image is a link, never loaded into the page). No framing (clickjacking), no referrers.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; object-src 'none'; " +
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
}

/**
 * The web console for agents and admins (DESIGN §10): the static build of `console/` at
 * /console/, every other /console/ path answered with its index.html (the app routes itself).
 */
export async function consoleApp(fastify: FastifyInstance, options: { root?: string } = {}): Promise<void> {
  const root = options.root ?? CONSOLE_DIR
  fastify.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect(PREFIX))
  fastify.get('/console', { schema: { hide: true } }, (_request, reply) => reply.redirect(PREFIX))
  if (!existsSync(join(root, 'index.html'))) {
    fastify.get(`${PREFIX}*`, { schema: { hide: true } }, async () => {
      throw new AppError('unavailable', 'The console is not built: run npm run build')
    })
    return
  }
  fastify.addHook('onSend', async (request, reply) => {
    if (request.url.startsWith(PREFIX)) reply.headers(SECURITY_HEADERS)
  })
  await fastify.register(fastifyStatic, {
    root,
    prefix: PREFIX,
    // Files are routed one by one at start, which leaves the wildcard to the app's own routes.
    wildcard: false,
    // Vite names assets by content hash: they never change. The page itself is always revalidated.
    setHeaders: (reply, path) => {
      reply.header(
        'cache-control',
        path.endsWith('.html') ? 'no-cache' : 'public, max-age=31536000, immutable',
      )
    },
  })
  fastify.get(`${PREFIX}*`, { schema: { hide: true } }, async (request, reply) => {
    // A missing file (an asset of an older build, say) is a 404, not the page in its place.
    if (LOOKS_LIKE_A_FILE.test(request.url.split('?')[0] as string))
      throw new AppError('notFound', 'No such file')
    return reply.header('cache-control', 'no-cache').sendFile('index.html')
  })
}
