import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { caseMessage, caseRequest, caseShape } from '../../contract/cases.js'
import { messageShape } from '../../contract/chat.js'
import { caseContent } from '../../domain/cases/case.js'
import { success } from '../../http/envelope.js'
import { optionalInteger, optionalText, params, requiredChoice, requiredID } from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describe, PREFIX } from './describe.js'

const caseList = params({
  status: (name: string) => requiredChoice(['bot', 'queued', 'assigned', 'closed'])(name).optional(),
  topicID: optionalInteger({ min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
  mine: () => z.boolean({ error: "Param 'mine' must be a boolean" }).optional(),
  limit: optionalInteger({ min: 1, max: 100, fallback: 50 }),
  before: optionalInteger({
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    fallback: 0,
    description: 'Paging: the `created` of the last case of the previous page (with beforeCaseID).',
  }),
  beforeCaseID: optionalText({
    max: 64,
    description: 'Paging: the caseID of the last case of the previous page.',
  }),
})

const assignRequest = params({ id: requiredID('The caseID.'), agentAccountID: requiredID() })
const transferRequest = params({
  id: requiredID('The caseID.'),
  agentAccountID: optionalText({ max: 64, description: 'To this agent; or give topicID.' }),
  topicID: optionalInteger({ min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
})

/** The agents' case routes (DESIGN §9, §10), in the signed-in scope of the agent API. */
export async function agentCaseAPI(signedIn: FastifyInstance): Promise<void> {
  const routes = signedIn.withTypeProvider<ZodTypeProvider>()
  const cases = routes.services.cases.agents
  routes.post(
    `${PREFIX}/case/get_list`,
    describe('Cases of your organization', caseList, z.object({ cases: z.array(caseShape) })),
    async (r) =>
      success({
        cases: await cases.list(r.agent, {
          limit: r.body.limit,
          ...(r.body.status ? { status: r.body.status } : {}),
          ...(r.body.topicID ? { topicID: r.body.topicID } : {}),
          ...(r.body.mine ? { mine: true } : {}),
          ...(r.body.before ? { before: { created: r.body.before, caseID: r.body.beforeCaseID ?? '' } } : {}),
        }),
      }),
  )
  routes.post(
    `${PREFIX}/case/take`,
    describe('Take a waiting case (one agent wins)', caseRequest, z.object({ case: caseShape })),
    async (r) => success({ case: await cases.take(r.agent, r.body.id) }),
  )
  routes.post(
    `${PREFIX}/case/get_by_id`,
    describe(
      "A case with its latest messages and the chatbot's handover summary",
      caseRequest,
      z.object({ case: caseShape, handoverSummary: z.string(), messages: z.array(messageShape) }),
    ),
    async (r) => success(await cases.detail(r.agent, r.body.id)),
  )
  routes.post(
    `${PREFIX}/case/assign`,
    describe('Give a case to an agent (admins)', assignRequest, z.object({ case: caseShape })),
    async (r) => success({ case: await cases.assign(r.agent, r.body.id, r.body.agentAccountID) }),
  )
  routes.post(
    `${PREFIX}/case/transfer`,
    describe(
      "Pass your case to another agent or to a topic's queue; move a waiting case of your topic to another topic",
      transferRequest,
      z.object({ case: caseShape }),
    ),
    async (r) =>
      success({
        case: await cases.transfer(r.agent, r.body.id, {
          ...(r.body.agentAccountID ? { agentAccountID: r.body.agentAccountID } : {}),
          ...(r.body.topicID ? { topicID: r.body.topicID } : {}),
        }),
      }),
  )
  routes.post(
    `${PREFIX}/case/send_message`,
    describe('Reply in a case assigned to you', caseMessage, z.object({ message: messageShape })),
    async (r) =>
      success({
        message: await cases.send(r.agent, r.body.id, {
          localID: r.body.localID,
          content: caseContent(r.body),
        }),
      }),
  )
  routes.post(
    `${PREFIX}/case/close`,
    describe('Close a case', caseRequest, z.object({ case: caseShape })),
    async (r) => success({ case: await cases.close(r.agent, r.body.id) }),
  )
}
