import type { Selectable } from 'kysely'
import type { CasesTable, MessagesTable, OrganizationsTable, UsersTable } from '../../storage/schema.js'
import { MessageType } from '../messages/message-types.js'

/** What a chatbot receives for one visitor message (DESIGN §9), in the product family's shape. */
export function deliveryBody(parts: {
  caseRow: Selectable<CasesTable>
  message: Selectable<MessagesTable>
  user: Selectable<UsersTable>
  organization: Selectable<OrganizationsTable>
}): string {
  const { caseRow, message, user, organization } = parts
  const data = JSON.parse(message.data) as Record<string, unknown>
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
        return { type: 'text', text: { body: message.body } }
    }
  })()
  return JSON.stringify({
    caseID: caseRow.id,
    channelType: 'launcher',
    channelID: organization.id,
    channelName: organization.name,
    sender: { customerUserID: user.xc_user_id, phone: user.phone, contactName: user.full_name },
    message: { id: message.id, ...content },
  })
}
