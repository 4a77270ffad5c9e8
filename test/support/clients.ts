import type { Frame } from '../../src/realtime/hub.js'
import type { Reply, TestServer } from './app.js'
import { createOrganizationWithKey, validTicketRequest } from './fixtures.js'

/** A signed-in client app: its user, tokens, and a way to call the client API. */
export interface TestClient {
  userID: string
  xcUserID: string
  accessToken: string
  refreshToken: string
  call(path: string, body?: unknown): Promise<Reply>
}

export async function requestTicket(server: TestServer, serverKey: string, xcUserID: string, extra = {}) {
  const reply = await server.post(
    '/v1/server/auth_ticket/request',
    validTicketRequest({ xcUserID, ...extra }),
    {
      'server-key': serverKey,
    },
  )
  if (reply.status !== 200) throw new Error(`ticket: ${reply.text}`)
  return reply.json.data as { userID: string; ticket: string }
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

/** Signs a user in: a ticket (with `ticketFields` over the defaults) traded for tokens. */
export async function signIn(
  server: TestServer,
  serverKey: string,
  xcUserID: string,
  ticketFields: Record<string, unknown> = {},
): Promise<TestClient> {
  const { ticket } = await requestTicket(server, serverKey, xcUserID, {
    fullName: `User ${xcUserID}`,
    ...ticketFields,
  })
  const reply = await server.post('/v1/auth/access_token/request', undefined, bearer(ticket))
  if (reply.status !== 200) throw new Error(`exchange: ${reply.text}`)
  const { accessToken, refreshToken, user } = reply.json.data
  return {
    userID: user.userID,
    xcUserID,
    accessToken,
    refreshToken,
    call: (path, body = {}) => server.post(path, body, bearer(accessToken)),
  }
}

/** Every message of a room as `client` reads it through the chat API, oldest first. */
export async function roomHistory(client: TestClient, roomID: string) {
  // biome-ignore lint/suspicious/noExplicitAny: messages are asserted field by field
  const messages: any[] = []
  for (let minCreated = 0; ; minCreated = messages.at(-1).created) {
    const reply = await client.call('/v1/chat/message/list_by_room/after', { roomID, minCreated, limit: 100 })
    if (reply.status !== 200) throw new Error(`list_by_room/after: ${reply.text}`)
    messages.push(...reply.json.data.messages)
    if (!reply.json.data.hasMore) return messages
  }
}

/** An organization with a server key, and a way to sign its users in. */
export async function createOrganization(server: TestServer, name = 'Acme') {
  const key = await createOrganizationWithKey(server.app.services, name)
  return { ...key, signIn: (xcUserID: string) => signIn(server, key.serverKey, xcUserID) }
}

/** Every event published on the server's hub from now on, with its audience. */
export function recordEvents(server: TestServer) {
  const events: { userIDs: readonly string[]; sessionIDs: readonly string[]; event: Frame }[] = []
  const stop = server.app.services.hub.subscribe((audience, event) =>
    events.push({ userIDs: audience.userIDs ?? [], sessionIDs: audience.sessionIDs ?? [], event }),
  )
  return { events, stop, named: (eventName: string) => events.filter((e) => e.event.eventName === eventName) }
}
