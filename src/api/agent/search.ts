import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { caseHitShape, caseSearchRequest } from '../../contract/search.js'
import { success } from '../../http/envelope.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describe, PREFIX } from './describe.js'

/** The agents' case search, in the signed-in scope of the agent API. */
export async function agentSearchAPI(signedIn: FastifyInstance): Promise<void> {
  const routes = signedIn.withTypeProvider<ZodTypeProvider>()
  routes.post(
    `${PREFIX}/case/search`,
    describe(
      "Search your organization's cases: words said, visitor, case ID; filters",
      caseSearchRequest,
      z.object({ cases: z.array(caseHitShape), hasMore: z.boolean() }),
    ),
    async (r) => {
      const { body } = r
      return success(
        await routes.services.search.search(r.agent, {
          limit: body.limit,
          ...(body.query ? { query: body.query } : {}),
          ...(body.status ? { status: body.status } : {}),
          ...(body.topicID ? { topicID: body.topicID } : {}),
          ...(body.agentAccountID ? { agentAccountID: body.agentAccountID } : {}),
          ...(body.tags?.length ? { tags: body.tags } : {}),
          ...(body.from ? { from: body.from } : {}),
          ...(body.to ? { to: body.to } : {}),
          ...(body.before ? { before: { created: body.before, caseID: body.beforeCaseID ?? '' } } : {}),
        }),
      )
    },
  )
}
