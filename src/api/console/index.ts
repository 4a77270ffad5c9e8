import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, sep } from 'node:path'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError } from '../../errors/app-error.js'
import { PACKAGE_ROOT } from '../../lib/package-root.js'

/** Where `npm run build` (run at install time) puts the console. */
export const CONSOLE_DIR = join(PACKAGE_ROOT, 'dist/console/')
const PREFIX = '/console/'
/** The app's own paths are words and IDs; a last segment with an extension names a file. */
const LOOKS_LIKE_A_FILE = /\/[^/]+\.[a-z0-9]+$/i
/** Vite names assets by content hash: they never change. The page itself is always revalidated. */
const cacheControlOf = (file: string) =>
  file.endsWith('.html') ? 'no-cache' : 'public, max-age=31536000, immutable'

/** The build's files, as paths under /console/ (`assets/index-….js`): listed at start, not read. */
function filesOf(root: string): Set<string> {
  const paths = readdirSync(root, { recursive: true, encoding: 'utf8' })
  return new Set(
    paths.filter((path) => statSync(join(root, path)).isFile()).map((path) => path.split(sep).join('/')),
  )
}

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
 * The web console for agents and admins (docs/guides/console.md): the static build of `console/` at
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
  // Only the files the build holds are served (nothing a path with dots or slashes could reach),
  // streamed from disk by @fastify/send (ETag, ranges, HEAD), loaded as the console is first asked for.
  const files = filesOf(root)
  let sender: Promise<typeof import('@fastify/send').default> | undefined
  const serve = async (request: FastifyRequest, reply: FastifyReply, file: string) => {
    sender ??= import('@fastify/send').then((module) => module.default)
    const { statusCode, headers, stream, type, metadata } = await (await sender)(
      request.raw,
      `/${encodeURI(file)}`,
      { root },
    )
    if (type !== 'file') {
      // A file gone since start is a 404; a range the file cannot satisfy a 416, as its error says.
      const { error } = metadata as { error?: Error & { status?: number; code?: string } }
      if (error && error.status !== 404 && error.code !== 'ENOENT') throw error
      throw new AppError('notFound', 'No such file')
    }
    return reply.code(statusCode).headers(headers).header('cache-control', cacheControlOf(file)).send(stream)
  }
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = (request.params as { '*'?: string })['*'] ?? ''
    if (files.has(path)) return serve(request, reply, path)
    // A missing file (an asset of an older build, say) is a 404, not the page in its place.
    if (LOOKS_LIKE_A_FILE.test(request.url.split('?')[0] as string))
      throw new AppError('notFound', 'No such file')
    return serve(request, reply, 'index.html')
  }
  for (const path of [PREFIX, `${PREFIX}*`]) fastify.get(path, { schema: { hide: true } }, page)
}
