import type { FastifyRequest } from 'fastify'
import type { Message } from '../../domain/messages/message.js'
import type { ScheduledMessage } from '../../domain/scheduled/scheduled-message.js'
import { fromSDKMessage, toSDKMessage } from './model.js'

// The SDK's scheduled messages, read details and shared content: its message model in the
// requests (encrypted, as it sends messages) and in the answers.

const CREATE = '/v1/chat/scheduled_message/create'
const EDIT_CONTENT = '/v1/chat/scheduled_message/edit_content'

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * A scheduled message's create carries the SDK's whole message model, and its edit the model
 * with the new text: Parley's send parameters, and the text alone.
 */
export function fromSDKFeatureRequest(request: FastifyRequest): void {
  const url = request.routeOptions.url
  const body = request.body
  if ((url !== CREATE && url !== EDIT_CONTENT) || !isObject(body) || !isObject(body.message)) return
  const message = fromSDKMessage(body.message)
  if (url === CREATE) body.message = message
  else request.body = { id: body.id, body: message.body }
}

export interface FeatureData {
  scheduled?: ScheduledMessage
  items?: ScheduledMessage[]
  media?: Message[]
  files?: Message[]
  links?: Message[]
}

const inModel = (scheduled: ScheduledMessage) => ({ ...scheduled, message: toSDKMessage(scheduled.message) })

/** An answer of these routes in the SDK's model; undefined for other answers. */
export function toSDKFeatureData(data: FeatureData): unknown {
  if (data.scheduled) return { ...data, scheduled: inModel(data.scheduled) }
  if (data.items) return { ...data, items: data.items.map(inModel) }
  // Every key a list: its getRoomMedia maps each one (so no `hasMore`).
  if (data.media && data.files && data.links)
    return {
      media: data.media.map(toSDKMessage),
      files: data.files.map(toSDKMessage),
      links: data.links.map(toSDKMessage),
    }
  return undefined
}
