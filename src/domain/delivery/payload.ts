import { MessageType } from '../messages/message-types.js'
import type { DeliveryContext } from './deliveries.repository.js'

/**
 * A visitor's choice of a quick reply (`data.interactive`), as the family's inbound message has it:
 * `interactive` on the message, and the same under `whatsappba`, where the family's bots written
 * for its WhatsApp channel read it.
 */
function choiceOf(data: Record<string, unknown>) {
  if (typeof data.interactive !== 'object' || data.interactive === null) return {}
  return { interactive: data.interactive, whatsappba: { type: 'interactive', interactive: data.interactive } }
}

/** What a chatbot receives for one visitor message (docs/reference/chatbot-webhook.md), in the product family's shape. */
export function deliveryBody(
  message: DeliveryContext,
  withLinks: (data: Record<string, unknown>) => Record<string, unknown>,
): string {
  const data = withLinks(JSON.parse(message.data) as Record<string, unknown>)
  const media = { url: data.url, caption: message.body }
  const content = (() => {
    switch (message.type) {
      case MessageType.image:
        return { type: 'image', image: media }
      case MessageType.video:
        return { type: 'video', video: media }
      case MessageType.file:
        return {
          type: 'document',
          document: { url: data.url, filename: data.fileName, caption: message.body },
        }
      case MessageType.location:
        return {
          type: 'location',
          location: {
            latitude: data.latitude,
            longitude: data.longitude,
            address: data.address ?? '',
            name: data.name ?? '',
          },
        }
      default:
        return { type: 'text', text: { body: message.body }, ...choiceOf(data) }
    }
  })()
  return JSON.stringify({
    caseID: message.caseID,
    channelType: 'launcher',
    channelID: message.organizationID,
    channelName: message.organizationName,
    sender: { customerUserID: message.xcUserID, phone: message.phone, contactName: message.fullName },
    message: { id: message.messageID, ...content },
  })
}
