import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { showsInline } from '../../domain/files/file-types.js'
import { SECURITY } from '../../http/docs.js'
import { fileBytes } from '../../http/envelope.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { withoutBidiControls } from '../../lib/formats.js'

const link = {
  params: z.object({
    fileID: z.string().max(64),
    variant: z.enum(['file', 'thumbnail']),
    fileName: z.string().max(1024),
  }),
  querystring: z.object({
    expires: z.coerce.number().int().nonnegative(),
    signature: z.string().max(128),
  }),
}

/**
 * `GET /files/<fileID>/<file|thumbnail>/<name>?expires=…&signature=…`: an uploaded file by its
 * signed link (made for those who may see the message carrying it). Nothing uploaded can run
 * here: the type is the sniffed one and never guessed again (nosniff), the page is sandboxed with
 * no sources allowed, and only safe images show inline; everything else downloads.
 */
export async function filesAPI(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  app.get(
    '/files/:fileID/:variant/:fileName',
    {
      schema: {
        summary: 'Download an uploaded file by its signed link (403 forged or expired, 404 gone)',
        tags: ['files'],
        // The signed link is the permission: no credentials go with it (an <img> sends none).
        security: SECURITY.signedLink,
        ...link,
        response: { 200: fileBytes('The bytes, as their media type (nosniff, sandboxed).') },
      },
    },
    async (request, reply) => {
      const { fileID, variant } = request.params
      const { file, bytes, maxAgeSeconds } = await app.services.files.open(fileID, variant, request.query)
      const thumbnail = variant === 'thumbnail'
      const mediaType = thumbnail ? 'image/webp' : file.media_type
      const inline = thumbnail || showsInline(mediaType)
      reply.headers({
        'content-type': mediaType === 'text/plain' ? 'text/plain; charset=utf-8' : mediaType,
        'content-disposition': `${inline ? 'inline' : 'attachment'}; ${dispositionName(file.file_name)}`,
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'cross-origin-resource-policy': 'cross-origin',
        'referrer-policy': 'no-referrer',
        'cache-control': `private, max-age=${maxAgeSeconds}, immutable`,
        ...(thumbnail ? {} : { 'content-length': String(file.size) }),
      })
      return reply.send(bytes)
    },
  )
}

/**
 * `filename="…"` in ASCII for old clients, and `filename*=UTF-8''…` with the real name (without
 * bidi controls, which a name stored before they were stripped may still hold).
 */
function dispositionName(stored: string): string {
  const name = withoutBidiControls(stored)
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_')
  return `filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
}
