import type { FastifyInstance, FastifyRequest, RouteShorthandOptions } from 'fastify'
import { z } from 'zod'
import type { FileObject } from '../domain/files/files.service.js'
import { tooLarge, type Uploader } from '../domain/files/uploads.js'
import { AppError, paramError } from '../errors/app-error.js'
import { errorEnvelope, success, successEnvelope } from '../http/envelope.js'
import { fileShape } from './files.js'

/** Room for the multipart framing around the file (boundaries, part headers). */
const FRAMING_BYTES = 64 * 1024

/**
 * One upload route of an API family: `multipart/form-data` with one part named `file`, streamed
 * through Files.upload. A Content-Length beyond the limit is refused before the body is read;
 * a body without one, as soon as it passes the limit.
 */
export function uploadRoute(
  app: FastifyInstance,
  path: string,
  options: RouteShorthandOptions & {
    tags: string[]
    uploader: (request: FastifyRequest) => Uploader
    /** Where the family does not document it for all its routes (the webhook's Secret-Key). */
    security?: Record<string, string[]>[]
    /**
     * What becomes of the upload, when not a file for a message (a photo): its summary, and the
     * answer it makes of the file and the form's fields before the file.
     */
    keep?: {
      summary: string
      data: z.ZodType
      make: (request: FastifyRequest, file: FileObject, fields: Record<string, unknown>) => Promise<unknown>
      /** Refuses the upload from the fields before the file (before its bytes are taken in). */
      admit?: (request: FastifyRequest, fields: Record<string, unknown>) => Promise<void>
    }
  },
): void {
  const { files } = app.services
  const { uploader, tags, security, keep, ...route } = options
  app.post(
    path,
    {
      ...route,
      schema: {
        summary:
          keep?.summary ??
          'Upload a file (multipart/form-data, one part named `file`); a message then carries it',
        tags,
        ...(security ? { security } : {}),
        consumes: ['multipart/form-data'],
        response: {
          200: successEnvelope(keep?.data ?? z.object({ file: fileShape })),
          409: errorEnvelope('40902: a quota of unsent files is reached (docs/reference/quotas.md)', {
            status: 409,
            code: '40902',
            message:
              'Upload quota reached: you have 20 files uploaded and not sent, the most one may keep (send them, or they expire a day after upload)',
            field: 'file',
          }),
          413: errorEnvelope('41300: the file is larger than UPLOAD_MAX_MB', {
            status: 413,
            code: '41300',
            message: 'File is too large (at most 26214400 bytes)',
          }),
          415: errorEnvelope('41500: not multipart/form-data, or a type the organization does not take', {
            status: 415,
            code: '41500',
            message: 'Files of type text/html are not accepted here',
          }),
          429: errorEnvelope('42900: too many uploads a minute (Retry-After says when to try again)', {
            status: 429,
            code: '42900',
            message: 'too many uploads: at most 30 a minute',
          }),
        },
      },
      onRequest: [
        ...[route.onRequest ?? []].flat(),
        async (request) => {
          if (Number(request.headers['content-length']) > files.maxBytes + FRAMING_BYTES)
            throw tooLarge(files.maxBytes)
        },
      ],
    },
    async (request) => {
      if (!request.isMultipart())
        throw new AppError('unsupportedMediaType', 'Content-Type must be multipart/form-data')
      const part = await request.file()
      if (part?.fieldname !== 'file') throw paramError('file', 'is required')
      const fields = Object.fromEntries(
        Object.entries(part.fields).map(([name, field]) => [name, (field as { value?: unknown }).value]),
      )
      await keep?.admit?.(request, fields)
      const file = await files.upload(uploader(request), { stream: part.file, fileName: part.filename })
      return success(keep ? await keep.make(request, file, fields) : { file })
    },
  )
}
