import type { FastifyInstance } from 'fastify'
import { requireClient } from '../../contract/client-auth.js'
import { SECURITY } from '../../http/docs.js'
import { fileBytes } from '../../http/envelope.js'
import { params, requiredText } from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'

export const DOWNLOAD = '/v1/chat/file/download'

const download = params({ roomID: requiredText({ max: 64 }), fileID: requiredText({ max: 64 }) })

/**
 * The SDKs' download: `POST /v1/chat/file/download {roomID, fileID}` answers the bytes (it keeps
 * them as base64 in the browser's IndexedDB), for a participant of the room the file was sent in.
 * Uploads need nothing of their own: `/v1/chat/file/upload` is Parley's (its answer is reshaped).
 */
export async function taptalkFiles(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  app.post(
    DOWNLOAD,
    {
      onRequest: requireClient,
      schema: {
        summary: 'A file sent in a room, by fileID (the TapTalk.io SDKs; App-Key required)',
        tags: ['TapTalk.io SDKs'],
        security: SECURITY.client,
        body: download,
        response: { 200: fileBytes('The bytes, as their media type.') },
      },
    },
    async (request, reply) => {
      const { roomID, fileID } = request.body
      await app.services.rooms.access(request.client, roomID)
      const { file, bytes } = await app.services.files.openInRoom(fileID, roomID)
      reply.headers({
        'content-type': file.media_type,
        'content-length': String(file.size),
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
      })
      return reply.send(bytes)
    },
  )
}
