import { paramError } from '../../errors/app-error.js'
import { isHTTPURL, isID, withoutBidiControls } from '../../lib/formats.js'

/** Message types of the chat API (docs/reference/client-api.md). */
export const MessageType = {
  text: 1001,
  image: 1002,
  video: 1003,
  file: 1004,
  location: 1005,
  voice: 1008,
  link: 1010,
  system: 9001,
} as const

/** The types a client may send; 9001 (system) is Parley's own. */
export const CLIENT_MESSAGE_TYPES = [
  MessageType.text,
  MessageType.image,
  MessageType.video,
  MessageType.file,
  MessageType.location,
  MessageType.voice,
  MessageType.link,
] as const

export const MAX_BODY_CHARACTERS = 20_000

export interface MessageContent {
  type: number
  body: string
  data: Record<string, unknown>
}

const codePoints = (text: string) => [...text].length

function requireURL(data: Record<string, unknown>): void {
  if (data.url === undefined || data.url === null || data.url === '')
    throw paramError('data.url', 'is required')
  if (typeof data.url !== 'string' || !isHTTPURL(data.url)) throw paramError('data.url', 'is invalid')
}

function requireString(data: Record<string, unknown>, key: string): void {
  if (typeof data[key] !== 'string' || (data[key] as string).trim() === '')
    throw paramError(`data.${key}`, 'is required')
}

function requireNumberIn(data: Record<string, unknown>, key: string, limit: number): void {
  const value = data[key]
  if (value === undefined || value === null) throw paramError(`data.${key}`, 'is required')
  if (typeof value !== 'number' || !Number.isFinite(value) || Math.abs(value) > limit) {
    throw paramError(`data.${key}`, 'is invalid')
  }
}

/** A voice note's longest `data.duration`, in milliseconds (docs/reference/limits.md). */
export const MAX_VOICE_MS = 3_600_000

/** What a link message may say of its page, the longest each (docs/reference/limits.md). */
export const LINK_FIELDS = { title: 500, description: 2000, image: 2048, siteName: 255, type: 64 } as const

/**
 * A link message carries what its sender says of the page (Parley fetches nothing): `data.url`,
 * and optional strings within LINK_FIELDS; `data.urls`, if given, up to 20 of them.
 */
function checkLink(body: string, data: Record<string, unknown>): void {
  if (body.trim() === '') throw paramError('body', 'is required')
  requireURL(data)
  for (const [key, max] of Object.entries(LINK_FIELDS)) {
    const value = data[key]
    if (value !== undefined && (typeof value !== 'string' || codePoints(value) > max))
      throw paramError(`data.${key}`, `must be a string of at most ${max} characters`)
  }
  const { urls } = data
  if (urls !== undefined && !(Array.isArray(urls) && urls.length <= 20 && urls.every(isLinkURL)))
    throw paramError('data.urls', 'must be a list of at most 20 http(s) URLs')
}

const isLinkURL = (url: unknown) => typeof url === 'string' && url.length <= 2048 && isHTTPURL(url)

/** The uploaded file a message's content carries (`data.fileID`), if it names one. */
export const fileIDOf = (content: MessageContent): string | undefined =>
  typeof content.data.fileID === 'string' ? content.data.fileID : undefined

/**
 * Whether the data names a file uploaded to Parley (`data.fileID`, described by Files when sent)
 * rather than a URL somebody else hosts.
 */
function uploaded(data: Record<string, unknown>): boolean {
  if (data.fileID === undefined) return false
  if (!isID(data.fileID)) throw paramError('data.fileID', 'is invalid')
  return true
}

/**
 * Checks a message's body and data against its type's rules: text needs a body; image and video
 * a `data.url`; file a `data.url` and `data.fileName` (or, for all three, the `data.fileID` of an
 * upload); location `data.latitude` and `.longitude`; voice an audio upload (or `data.url`) and its
 * `data.duration`; link a body and `data.url`.
 */
export function checkContent(content: MessageContent): MessageContent {
  const { type, body, data } = content
  if (codePoints(body) > MAX_BODY_CHARACTERS) {
    throw paramError('body', `must be at most ${MAX_BODY_CHARACTERS} characters`)
  }
  switch (type) {
    case MessageType.text:
      if (body.trim() === '') throw paramError('body', 'is required')
      break
    case MessageType.image:
    case MessageType.video:
      if (!uploaded(data)) requireURL(data)
      break
    case MessageType.file:
      if (uploaded(data)) break
      requireURL(data)
      requireString(data, 'fileName')
      return { ...content, data: { ...data, fileName: withoutBidiControls(data.fileName as string) } }
    case MessageType.location:
      requireNumberIn(data, 'latitude', 90)
      requireNumberIn(data, 'longitude', 180)
      break
    case MessageType.voice:
      if (!uploaded(data)) requireURL(data)
      requireNumberIn(data, 'duration', MAX_VOICE_MS)
      if ((data.duration as number) < 0) throw paramError('data.duration', 'is invalid')
      break
    case MessageType.link:
      checkLink(body, data)
      break
  }
  return content
}
