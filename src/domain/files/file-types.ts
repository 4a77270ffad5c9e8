import { open } from 'node:fs/promises'

// What a file is, as its bytes say (never as the uploader says), and which kinds an organization
// takes unless its admins chose otherwise.

/** Images shown inline (as `<img>`): formats browsers render without running anything. */
export const INLINE_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const

/** Images, videos, voice notes, PDF, office documents, archives and plain text. */
export const DEFAULT_FILE_TYPES: readonly string[] = [
  ...INLINE_IMAGE_TYPES,
  'image/heic',
  'video/mp4',
  'video/webm',
  'video/quicktime',
  // Voice notes (message type 1008).
  'audio/wav',
  'audio/ogg',
  'audio/opus',
  'audio/mpeg',
  'audio/mp4',
  'audio/x-m4a',
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/msword',
  'application/vnd.ms-excel',
  'application/zip',
  'text/plain',
]

/** Bytes read to tell text from binary. */
const TEXT_SAMPLE = 64 * 1024

/**
 * The media type the file's bytes show (file-type's signatures). Bytes of no known format that
 * are UTF-8 text with no control characters are `text/plain` (also HTML and SVG: they are served
 * as downloads, never run); anything else is `application/octet-stream`.
 */
export async function sniffMediaType(path: string): Promise<string> {
  // Loaded with the first upload: its signatures take a sixth of a second to load.
  const { fileTypeFromFile } = await import('file-type')
  const found = await fileTypeFromFile(path)
  if (found) return found.mime
  return (await looksLikeText(path)) ? 'text/plain' : 'application/octet-stream'
}

async function looksLikeText(path: string): Promise<boolean> {
  const file = await open(path)
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(TEXT_SAMPLE), 0, TEXT_SAMPLE, 0)
    if (bytesRead === 0) return false
    // A full sample may end inside a character: decoding as a stream leaves that one out.
    const text = new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(0, bytesRead), {
      stream: bytesRead === TEXT_SAMPLE,
    })
    return !hasControlCharacters(text)
  } catch {
    return false // not UTF-8
  } finally {
    await file.close()
  }
}

/** Control characters other than tab, line feeds, form feed: no text file has them. */
function hasControlCharacters(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 9 || (code > 13 && code < 32) || code === 127) return true
  }
  return false
}

/** Whether a file of this type shows inline; everything else downloads as an attachment. */
export const showsInline = (mediaType: string) =>
  (INLINE_IMAGE_TYPES as readonly string[]).includes(mediaType)

/** The message type a file's media type fits: an image, a video, a voice note, or (any type) a file. */
export const fitsMessageType = (mediaType: string, messageType: number) =>
  messageType === 1004 ||
  (messageType === 1008 && mediaType.startsWith('audio/')) ||
  (messageType === 1002 && mediaType.startsWith('image/')) ||
  (messageType === 1003 && mediaType.startsWith('video/'))
