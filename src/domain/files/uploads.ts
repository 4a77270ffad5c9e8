import { createWriteStream } from 'node:fs'
import type { Readable } from 'node:stream'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { AppError, paramError } from '../../errors/app-error.js'
import { withoutBidiControls } from '../../lib/formats.js'

/** Who uploads: their organization, and their ID as a message's sender (userID, `agent:<id>`, `chatbot:<id>`). */
export interface Uploader {
  organizationID: string
  senderID: string
}

/** Longest file name kept, in code points. */
const NAME_LIMIT = 200
/** Thumbnails fit in this square (the console's, the widget's and the SDK's previews). */
const THUMBNAIL_SIZE = 320
/** Larger images are refused: a few bytes of PNG can claim billions of pixels. */
const MAX_PIXELS = 50_000_000

/**
 * Writes the upload to a file private to Parley's user, counting as it goes: past `maxBytes` it
 * stops reading and fails with 413, however the client framed the body. Its size.
 */
export async function spool(source: Readable, path: string, maxBytes: number): Promise<number> {
  let size = 0
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length
      if (size > maxBytes) done(tooLarge(maxBytes))
      else done(null, chunk)
    },
  })
  await pipeline(source, counter, createWriteStream(path, { mode: 0o600 }))
  // A multipart parser may end the part short at its own limit instead of failing.
  if ((source as { truncated?: boolean }).truncated) throw tooLarge(maxBytes)
  return size
}

export const tooLarge = (maxBytes: number) =>
  new AppError('bodyTooLarge', `File is too large (at most ${maxBytes} bytes)`)

/**
 * The name a file is kept and downloaded under: its last path segment, without control
 * characters or broken surrogates, at most 200 characters; `file` when nothing is left.
 */
export function cleanFileName(name: string | undefined): string {
  const last = (name ?? '').split(/[\\/]/).at(-1) ?? ''
  const clean = [...withoutBidiControls(last)]
    .filter((c) => c >= ' ' && c !== '\u007f' && !(c >= '\ud800' && c <= '\udfff'))
    .join('')
    .trim()
  return [...clean].slice(0, NAME_LIMIT).join('') || 'file'
}

/** An image's upright size and a WebP thumbnail of it at `thumbnailPath`. */
export async function describeImage(path: string, thumbnailPath: string) {
  // Loaded with the first image (sharp and libvips take a tenth of a second to load).
  const { default: sharp } = await import('sharp')
  try {
    const image = sharp(path, { limitInputPixels: MAX_PIXELS })
    const meta = await image.metadata()
    await image
      .clone()
      .rotate()
      .resize({ width: THUMBNAIL_SIZE, height: THUMBNAIL_SIZE, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 75 })
      .toFile(thumbnailPath)
    // EXIF orientations 5–8 turn the picture a quarter: the sides swap.
    const turned = (meta.orientation ?? 1) >= 5
    return { width: turned ? meta.height : meta.width, height: turned ? meta.width : meta.height }
  } catch {
    throw paramError('file', 'is not a readable image')
  }
}
