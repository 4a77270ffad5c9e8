import { MAX_BODY_CHARACTERS, type MessageContent, MessageType } from '../../domain/messages/message-types.js'
import { AppError } from '../../errors/app-error.js'
import { isHTTPURL, isID, isText, jsonFault } from '../../lib/formats.js'

// The chatbot webhook's payloads (docs/reference/chatbot-webhook.md), checked with the plain-text reasons
// chatbots of the product family expect.

export type WebhookEvent =
  | { caseID: string; eventType: 'messages'; messages: { localID?: string; content: MessageContent }[] }
  | {
      caseID: string
      eventType: 'handover_case'
      topicID?: number
      agentEmail?: string
      handoverSummary?: string
    }
  | { caseID: string; eventType: 'close_case'; sendClosingMessage: boolean }

export const MAX_MESSAGES = 50

const reject = (reason: string) => new AppError('invalidParam', reason)
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
/** A string field ('' when absent or of another type); `name` is how its reasons call it. */
function text(value: unknown, name: string): string {
  if (typeof value !== 'string') return ''
  // NUL and lone surrogates would be stored differently by SQLite and PostgreSQL: refused.
  if (!isText(value)) throw reject(`${name} is invalid`)
  return value
}
const tooLong = (value: string) => [...value].length > MAX_BODY_CHARACTERS

/**
 * A media part (`image`, `video`, `document`): its url, checked, and caption; or instead of the
 * url the `fileID` of a file the chatbot uploaded to Parley (its `data`, described when stored).
 */
function media(part: unknown): { source: Record<string, string>; caption: string; filename: string } {
  const item = isObject(part) ? part : {}
  const caption = text(item.caption, 'caption')
  if (tooLong(caption)) throw reject('text body is too long')
  if (item.fileID !== undefined) {
    if (!isID(item.fileID)) throw reject('file id is invalid')
    return { source: { fileID: item.fileID }, caption, filename: '' }
  }
  const url = text(item.url, 'url').trim()
  if (url === '') throw reject('url is required')
  if (!isHTTPURL(url)) throw reject('url is invalid')
  return { source: { url }, caption, filename: text(item.filename, 'filename') }
}

/** A URL's last path segment, percent-decoded where that gives text (`a%` stays `a%`). */
function lastSegment(url: string): string {
  const segment = new URL(url).pathname.split('/').pop() ?? ''
  try {
    const decoded = decodeURIComponent(segment)
    return isText(decoded) ? decoded : segment
  } catch {
    return segment
  }
}

/** `customData` is kept as sent, any JSON: every string inside it text, nested no deeper than the limit. */
function customData(value: unknown): { customData?: unknown } {
  if (value === undefined) return {}
  if (jsonFault(value)) throw reject('custom data is invalid')
  return { customData: value }
}

/** `localID` may be sent as a number; it is kept as a string. */
function localIDOf(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value)
  return typeof value === 'string' ? text(value, 'local id') : undefined
}

/** One bot message as stored (docs/reference/client-api.md); `customData` is kept in `data.customData`. */
function message(item: unknown): { localID?: string; content: MessageContent } {
  if (!isObject(item) || item.type === undefined || item.type === null || item.type === '') {
    throw reject('message type is required')
  }
  const extra = customData(item.customData)
  const localID = localIDOf(item.localID)
  const content = ((): MessageContent => {
    switch (item.type) {
      case 'text': {
        const body = isObject(item.text) ? text(item.text.body, 'text body') : ''
        if (body.trim() === '') throw reject('text body is required')
        if (tooLong(body)) throw reject('text body is too long')
        return { type: MessageType.text, body, data: extra }
      }
      case 'image': {
        const { source, caption } = media(item.image)
        return { type: MessageType.image, body: caption, data: { ...source, ...extra } }
      }
      case 'video': {
        // Some bots written against the family's doc send the video under `image`.
        const { source, caption } = media(item.video ?? item.image)
        return { type: MessageType.video, body: caption, data: { ...source, ...extra } }
      }
      case 'document': {
        const { source, caption, filename } = media(item.document)
        if (source.fileID) return { type: MessageType.file, body: caption, data: { ...source, ...extra } }
        // The family's contract does not require a filename: take the URL's last segment.
        const fileName = filename || lastSegment(source.url as string) || 'file'
        return { type: MessageType.file, body: caption, data: { ...source, fileName, ...extra } }
      }
      default:
        throw reject('message type is invalid')
    }
  })()
  return localID === undefined ? { content } : { localID, content }
}

/** `3` and `"3"` are topic 3; absent, 0 and "" mean "the case's topic". */
function topicID(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '' || value === 0 || value === '0') return undefined
  const id =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d+$/.test(value)
        ? Number(value)
        : Number.NaN
  if (!Number.isSafeInteger(id) || id < 0) throw reject('topic is invalid')
  return id
}

export function parseWebhook(body: unknown): WebhookEvent {
  if (!isObject(body)) throw reject('invalid request body')
  const caseID = text(body.caseID, 'case id').trim()
  if (caseID === '') throw reject('case id is required')
  const { eventType } = body
  if (eventType === undefined || eventType === null || eventType === '')
    throw reject('event type is required')
  switch (eventType) {
    case 'messages': {
      if (!Array.isArray(body.messages) || body.messages.length === 0) throw reject('messages is required')
      if (body.messages.length > MAX_MESSAGES) throw reject(`at most ${MAX_MESSAGES} messages are allowed`)
      return { caseID, eventType: 'messages', messages: body.messages.map(message) }
    }
    case 'handover_case': {
      const handover = isObject(body.handoverCase) ? body.handoverCase : {}
      const event: WebhookEvent & { eventType: 'handover_case' } = { caseID, eventType: 'handover_case' }
      const topic = topicID(handover.topicID)
      if (topic !== undefined) event.topicID = topic
      const agentEmail = text(handover.agentEmail, 'agent email').trim()
      if (agentEmail) event.agentEmail = agentEmail
      const handoverSummary = text(handover.chatbotHandoverSummary, 'summary')
      if (handoverSummary) event.handoverSummary = handoverSummary
      return event
    }
    case 'close_case': {
      const close = isObject(body.closeCase) ? body.closeCase : {}
      return { caseID, eventType: 'close_case', sendClosingMessage: close.sendClosingMessage === true }
    }
    default:
      throw reject('event type is invalid')
  }
}
