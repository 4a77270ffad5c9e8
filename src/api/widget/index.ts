import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { AppError } from '../../errors/app-error.js'
import { PACKAGE_ROOT } from '../../lib/package-root.js'

/** Where `npm run build` (run at install time) puts the widget. */
export const WIDGET_FILE = join(PACKAGE_ROOT, 'dist/widget/widget.js')

/**
 * `GET /widget.js`: the support widget, one script for customers' pages (`<script src=…>` then
 * `ParleyWidget.mount({getTicket})`). Read once at start; revalidated by ETag after five minutes,
 * so a new release reaches pages soon without every page view downloading it again.
 */
export async function widgetScript(fastify: FastifyInstance, options: { file?: string } = {}): Promise<void> {
  let script: Buffer | undefined
  try {
    script = readFileSync(options.file ?? WIDGET_FILE)
  } catch {
    script = undefined
  }
  const etag = script && `"${createHash('sha256').update(script).digest('base64url').slice(0, 27)}"`
  fastify.get('/widget.js', { schema: { hide: true } }, async (request, reply) => {
    if (!script) throw new AppError('unavailable', 'The widget is not built: run npm run build')
    reply.headers({
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=300',
      etag,
      'x-content-type-options': 'nosniff',
      // Other sites' pages load it (also those that isolate themselves with COEP).
      'cross-origin-resource-policy': 'cross-origin',
    })
    if (request.headers['if-none-match'] === etag) return reply.code(304).send()
    return reply.send(script)
  })
}
