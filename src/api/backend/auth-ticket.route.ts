import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { errorEnvelope, success, successEnvelope } from '../../http/envelope.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { authTicketRequest } from './auth-ticket.schema.js'

export function authTicketRoute(app: FastifyInstance): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/server/auth_ticket/request',
    {
      schema: {
        summary: 'Request an auth ticket for a user',
        description:
          'Saves the user identified by xcUserID (creating it if new) and returns a ticket, valid for one hour ' +
          'and usable once, that the client app exchanges for an access token.',
        tags: ['server'],
        body: authTicketRequest,
        response: {
          200: successEnvelope(
            z.object({
              userID: z.string().meta({ example: '325132386281046016' }),
              ticket: z.string().meta({ example: 'pX2Jd0t5wK3sA9...' }),
            }),
          ),
          400: errorEnvelope(
            '40001 (Server-Key missing or invalid) or 40002 (a parameter failed validation)',
            {
              status: 400,
              code: '40002',
              message: "Param 'xcUserID' is required",
              field: '105',
            },
          ),
          403: errorEnvelope('40301: the user of this xcUserID is deactivated (server API user/deactivate)', {
            status: 403,
            code: '40301',
            message: 'User customer-user-1001 is deactivated',
            field: '105',
          }),
        },
      },
    },
    async (request) => {
      const { userIPAddress, userAgent, userPlatform, userDeviceID, ...profile } = request.body
      const issued = await app.services.tickets.issue(request.serverKey.organizationID, profile, {
        ipAddress: userIPAddress,
        userAgent,
        platform: userPlatform,
        deviceID: userDeviceID,
      })
      return success({ userID: issued.userID, ticket: issued.ticket })
    },
  )
}
