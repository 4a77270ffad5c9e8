import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { tokensShape } from '../../contract/chat.js'
import { OPEN_BODY_LIMIT } from '../../http/body.js'
import { readBearer } from '../../http/credentials.js'
import { SECURITY } from '../../http/docs.js'
import { errorEnvelope, success, successEnvelope } from '../../http/envelope.js'

const unauthorized = errorEnvelope(
  '40101 no Authorization header, 40102 not "Bearer <token>", 40103 unknown, used, expired or revoked',
  {
    status: 401,
    code: '40103',
    message: 'ticket has already been used',
  },
)

/**
 * Client authentication (docs/reference/client-api.md): ticket → tokens, refresh, logout (the pre-connect check
 * lives with the WebSocket, in realtime/gateway.ts). The credential travels as `Authorization: Bearer <...>`; the body is empty.
 */
export async function authAPI(app: FastifyInstance): Promise<void> {
  // Both exchange a bearer credential (with the App-Key's organization, if any) for tokens.
  const tokenRoute = (
    url: string,
    summary: string,
    credential: 'ticket' | 'refreshToken',
    exchange: (credential: string, appOrganizationID?: string) => Promise<z.infer<typeof tokensShape>>,
  ) =>
    app.post(
      url,
      {
        schema: {
          summary,
          description: `Authorization: Bearer <${credential}>; empty body.`,
          tags: ['client auth'],
          security: SECURITY[credential],
          response: { 200: successEnvelope(tokensShape), 401: unauthorized },
        },
        // The credential's form is checked before the body is read, the credential itself after: the
        // body (empty, or a few bytes from the TapTalk.io SDKs) is kept small.
        onRequest: async (request) => {
          readBearer(request.headers.authorization)
        },
        bodyLimit: OPEN_BODY_LIMIT,
      },
      async (request) =>
        success(
          await exchange(readBearer(request.headers.authorization), request.taptalk?.appKey?.organizationID),
        ),
    )

  tokenRoute('/v1/auth/access_token/request', 'Exchange an auth ticket for tokens', 'ticket', (ticket, org) =>
    app.services.sessions.exchangeTicket(ticket, org),
  )
  tokenRoute(
    '/v1/auth/access_token/refresh',
    'Exchange the refresh token for new tokens (it rotates)',
    'refreshToken',
    (refreshToken, org) => app.services.sessions.refresh(refreshToken, org),
  )

  app.post(
    '/v1/client/logout',
    {
      // An expired access token of a live session will do: the SDK family logs out without
      // refreshing first.
      onRequest: async (request) => {
        const token = readBearer(request.headers.authorization)
        request.client = await app.services.sessions.authenticate(token, { allowExpired: true })
      },
      schema: {
        summary:
          'Revoke this session: its refresh token stops working, its sockets close (an expired access token will do)',
        tags: ['client auth'],
        security: SECURITY.client,
        response: { 200: successEnvelope(z.object({})), 401: unauthorized },
      },
    },
    async (request) => {
      await app.services.sessions.revoke(request.client.sessionID)
      return success({})
    },
  )
}
