import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { success } from '../../http/envelope.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { serverRoute } from './server-route.js'
import { userRequest } from './users.schema.js'

const block = z.object({
  userID: z.string(),
  created: z.number().int().describe('When the block was made (epoch ms).'),
})

/** What the customer's backend reads of its users' blocks (docs/reference/server-api.md). */
export function blockRoutes(fastify: FastifyInstance): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { userAccounts, people } = app.services
  app.post(
    '/v1/server/user/blocks',
    serverRoute(
      'Whom a user blocked, and who blocked them (by userID or xcUserID)',
      userRequest,
      z.object({ blocked: z.array(block), blockedBy: z.array(block) }),
    ),
    async (r) => {
      const user = await userAccounts.get(r.serverKey.organizationID, r.body)
      return success(await people.blocks.ofUser(user.userID))
    },
  )
}
