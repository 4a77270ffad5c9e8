import type { ChatbotDetails } from '../../src/domain/chatbots/chatbots.service.js'
import { send, type TestServer } from './app.js'
import type { TestClient } from './clients.js'

/** Calls the chatbot webhook as a chatbot would. */
export function webhook(server: TestServer, chatbot: Pick<ChatbotDetails, 'organizationID' | 'chatbotID'>) {
  return (
    body: unknown,
    { secretKey, contentType = 'application/json' }: { secretKey?: string; contentType?: string } = {},
  ) =>
    send(
      `${server.url}/api/visitor/v1/webhook/chatbot/custom/${chatbot.organizationID}/${chatbot.chatbotID}`,
      {
        method: 'POST',
        headers: {
          'content-type': contentType,
          ...(secretKey === undefined ? {} : { 'secret-key': secretKey }),
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      },
    )
}

export async function openCase(visitor: TestClient, message = 'I need help', topicID?: number) {
  const reply = await visitor.call('/api/visitor/v1/client/case/create', {
    message,
    ...(topicID ? { topicID } : {}),
  })
  if (reply.status !== 200) throw new Error(`case/create: ${reply.text}`)
  return reply.json.data.case as { caseID: string; roomID: string; status: string; topicID: number }
}

/** The messages of a case's room, oldest first, straight from storage. */
export function roomMessages(server: TestServer, roomID: string) {
  return server.testDatabase.database.db
    .selectFrom('messages')
    .select(['sender_id', 'local_id', 'type', 'body', 'data'])
    .where('room_id', '=', roomID)
    .orderBy('created')
    .execute()
}
