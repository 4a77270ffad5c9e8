import { z } from 'zod'
import type { FileObject } from '../domain/files/files.service.js'
import { shapeOf } from './shape.js'

/** An uploaded file, as an upload answers it; a message then carries it by `data.fileID`. */
export const fileShape = shapeOf<FileObject>()(
  z.object({
    fileID: z
      .string()
      .describe('Send it in a message: `data.fileID` (chat API) or `image|video|file.fileID` (cases).'),
    url: z.string().describe('A signed download link, good for one to two hours.'),
    thumbnailURL: z
      .string()
      .describe('A signed link to a WebP of at most 320×320 (images Parley reads); else empty.'),
    mediaType: z.string().describe('As the bytes show it, not as the upload said.'),
    size: z.number().int(),
    fileName: z.string(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
  }),
)
