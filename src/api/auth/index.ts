import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { paramError } from '../../errors/app-error.js'
import { errorEnvelope, successEnvelope } from '../../http/docs-schemas.js'
import { success } from '../../http/envelope.js'
import { tokensShape } from '../chat/shapes.js'
import { authorizationOf, readBearer, requireClient } from './bearer.js'

const unauthorized = errorEnvelope(
  '40101 no Authorization header, 40102 not "Bearer <token>", 40103 unknown, used, expired or revoked',
  {
    status: 401,
    code: '40103',
    message: 'ticket has already been used',
  },
)

/**
 * Client authentication (DESIGN §4): ticket → tokens, refresh, logout, and the pre-connect
 * check. The credential travels as `Authorization: Bearer <...>`; the body is empty.
 */
export async function authAPI(app: FastifyInstance): Promise<void> {
  const tokenRoute = (summary: string, credential: string) => ({
    schema: {
      summary,
      description: `Authorization: Bearer <${credential}>; empty body.`,
      tags: ['client auth'],
      response: { 200: successEnvelope(tokensShape), 401: unauthorized },
    },
    // The credential is checked before the body is read.
    onRequest: async (request: { headers: { authorization?: string } }) => {
      readBearer(request.headers.authorization)
    },
  })

  app.post(
    '/v1/auth/access_token/request',
    tokenRoute('Exchange an auth ticket for tokens', 'ticket'),
    async (request) =>
      success(await app.services.sessions.exchangeTicket(readBearer(request.headers.authorization))),
  )

  app.post(
    '/v1/auth/access_token/refresh',
    tokenRoute('Exchange the refresh token for new tokens (it rotates)', 'refreshToken'),
    async (request) =>
      success(await app.services.sessions.refresh(readBearer(request.headers.authorization))),
  )

  app.post(
    '/v1/client/logout',
    {
      onRequest: requireClient,
      schema: {
        summary: 'Revoke this session: its refresh token stops working, its sockets close',
        tags: ['client auth'],
        response: { 200: successEnvelope(z.object({})), 401: unauthorized },
      },
    },
    async (request) => {
      await app.services.sessions.revoke(request.client.sessionID)
      return success({})
    },
  )

  // The WebSocket itself comes with the real-time gateway; clients call ?check=1 before connecting.
  app.get(
    '/connect',
    {
      schema: {
        summary: 'Check an access token before opening the /connect WebSocket',
        description:
          'GET /connect?check=1 with Authorization: Bearer <accessToken> (or ?authorization=Bearer%20<token>).',
        tags: ['client auth'],
        querystring: z.object({ check: z.string().optional(), authorization: z.string().optional() }),
        response: { 200: successEnvelope(z.object({})), 401: unauthorized },
      },
    },
    async (request) => {
      await app.services.sessions.authenticate(readBearer(authorizationOf(request)))
      if ((request.query as { check?: string }).check !== '1') {
        throw paramError('check', 'must be 1 (the WebSocket gateway is not enabled yet)')
      }
      return success({})
    },
  )
}
