import type { FastifyInstance } from 'fastify'
import type { ServerKeyIdentity } from '../../domain/server-keys/server-keys.service.js'
import { ServerKeyError } from '../../domain/server-keys/server-keys.service.js'
import { documentSecurity, SECURITY } from '../../http/docs.js'
import { authTicketRoute } from './auth-ticket.route.js'
import { blockRoutes } from './blocks.route.js'
import { caseRoutes } from './cases.route.js'
import { roomRoutes } from './rooms.route.js'
import { userRoutes } from './users.route.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on server API routes: the organization whose Server-Key signed the request. */
    serverKey: ServerKeyIdentity
  }
}

/**
 * The server-to-server API, for the customer's backend (URLs /v1/server/…): the auth ticket (docs/reference/server-api.md), and users, rooms, messages and cases. Every route needs a valid Server-Key, checked in
 * onRequest: before the body is read, so a request without a valid key gets 40001 whatever it sent.
 */
export async function backendAPI(app: FastifyInstance): Promise<void> {
  app.decorateRequest('serverKey', null as unknown as ServerKeyIdentity)
  app.addHook('onRequest', async (request) => {
    try {
      request.serverKey = await app.services.serverKeys.authenticate(
        request.headers['server-key'] as string | undefined,
      )
    } catch (error) {
      if (error instanceof ServerKeyError) request.log.info({ reason: error.reason }, 'Server-Key rejected')
      throw error
    }
  })
  documentSecurity(app, SECURITY.server)
  authTicketRoute(app)
  userRoutes(app)
  roomRoutes(app)
  caseRoutes(app)
  blockRoutes(app)
}
