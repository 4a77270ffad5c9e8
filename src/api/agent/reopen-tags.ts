import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { caseRequest, taggedCaseShape, tagList } from '../../contract/cases.js'
import { agentCaseShape } from '../../contract/visitors.js'
import { success } from '../../http/envelope.js'
import { params, requiredID } from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describe, PREFIX } from './describe.js'

const setTagsRequest = params(
  {
    id: requiredID('The caseID.'),
    tags: tagList({
      max: 10,
      description:
        "The case's tags from now on (replacing its tags): each 1–32 characters once trimmed; compared and stored lower case; at most 10. [] removes them all.",
    }),
  },
  { examples: [{ id: 'FBED34A1EF', tags: ['refund', 'vip'] }] },
)

/** Reopening closed cases, and the organization's tags on cases, in the signed-in agent API. */
export async function agentReopenTagsAPI(signedIn: FastifyInstance): Promise<void> {
  const routes = signedIn.withTypeProvider<ZodTypeProvider>()
  const { reopening, tags } = routes.services.cases
  routes.post(
    `${PREFIX}/case/reopen`,
    describe(
      'Reopen a closed case (within CASE_REOPEN_WINDOW_HOURS of its closing): it is assigned to you',
      caseRequest,
      z.object({ case: taggedCaseShape }),
    ),
    async (r) => success({ case: await reopening.reopen(r.agent, r.body.id) }),
  )
  routes.post(
    `${PREFIX}/case/set_tags`,
    describe("Replace a case's tags (labels)", setTagsRequest, z.object({ case: agentCaseShape })),
    async (r) => success({ case: await tags.set(r.agent, r.body.id, r.body.tags) }),
  )
  routes.post(
    `${PREFIX}/tag/get_list`,
    describe(
      "Your organization's tags in use, each with its number of cases (the most used first)",
      params({}),
      z.object({ tags: z.array(z.object({ tag: z.string(), cases: z.number().int() })) }),
    ),
    async (r) => success({ tags: await tags.list(r.agent) }),
  )
}
