import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { caseMessage, caseRequest, taggedCaseShape, tagList } from '../../contract/cases.js'
import { messageShape } from '../../contract/chat.js'
import { noteShape } from '../../contract/notes.js'
import { agentCaseShape, visitorProfileShape } from '../../contract/visitors.js'
import { CASE_STATUSES, caseContent } from '../../domain/cases/case.js'
import { success } from '../../http/envelope.js'
import { optionalInteger, optionalText, params, requiredChoice, requiredID } from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describe, PREFIX } from './describe.js'

const caseList = params({
  status: (name: string) => requiredChoice(CASE_STATUSES)(name).optional(),
  topicID: optionalInteger({ min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
  mine: () => z.boolean({ error: "Param 'mine' must be a boolean" }).optional(),
  tags: (name: string) =>
    tagList({ max: 10, description: 'Only cases having every one of these tags.' })(name).optional(),
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

const visitorRequest = params({ userID: requiredID("The visitor's userID (a case's userID).") })

const assignRequest = params({ id: requiredID('The caseID.'), agentAccountID: requiredID() })
const transferRequest = params({
  id: requiredID('The caseID.'),
  agentAccountID: optionalText({ max: 64, description: 'To this agent; or give topicID.' }),
  topicID: optionalInteger({ min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
})

const typingRequest = params({
  id: requiredID('The caseID.'),
  typing: (name: string) =>
    z
      .boolean({
        error: (issue) =>
          issue.input === undefined || issue.input === null
            ? `Param '${name}' is required`
            : `Param '${name}' must be a boolean`,
      })
      .describe('true: you are typing (repeat every few seconds while you are); false: you stopped.'),
})
const markReadRequest = params({
  id: requiredID('The caseID.'),
  messageID: optionalText({ max: 64, description: 'Up to this message of the case; default: its newest.' }),
})

/** The agents' case routes (docs/reference/agent-api.md), in the signed-in scope of the agent API. */
export async function agentCaseAPI(signedIn: FastifyInstance): Promise<void> {
  const routes = signedIn.withTypeProvider<ZodTypeProvider>()
  const cases = routes.services.cases.agentCases
  routes.post(
    `${PREFIX}/case/get_list`,
    describe(
      'Cases of your organization, each with its visitor and last message',
      caseList,
      z.object({ cases: z.array(agentCaseShape) }),
    ),
    async (r) =>
      success({
        cases: await cases.list(r.agent, {
          limit: r.body.limit,
          ...(r.body.status ? { status: r.body.status } : {}),
          ...(r.body.topicID ? { topicID: r.body.topicID } : {}),
          ...(r.body.mine ? { mine: true } : {}),
          ...(r.body.tags?.length ? { tags: r.body.tags } : {}),
          ...(r.body.before ? { before: { created: r.body.before, caseID: r.body.beforeCaseID ?? '' } } : {}),
        }),
      }),
  )
  routes.post(
    `${PREFIX}/case/take`,
    describe('Take a waiting case (one agent wins)', caseRequest, z.object({ case: taggedCaseShape })),
    async (r) => success({ case: await cases.take(r.agent, r.body.id) }),
  )
  routes.post(
    `${PREFIX}/case/get_by_id`,
    describe(
      "A case with its latest messages, its internal notes and the chatbot's handover summary",
      caseRequest,
      z.object({
        case: taggedCaseShape,
        handoverSummary: z.string(),
        messages: z.array(messageShape),
        notes: z.array(noteShape).describe('Its internal notes (the newest 200), oldest first: agents only.'),
      }),
    ),
    async (r) => {
      const detail = await cases.detail(r.agent, r.body.id)
      return success({ ...detail, notes: await routes.services.notes.list(r.agent, r.body.id) })
    },
  )
  routes.post(
    `${PREFIX}/visitor/get`,
    describe(
      "A visitor of your organization: the profile their app's backend gave, their last device, their newest cases",
      visitorRequest,
      z.object({ visitor: visitorProfileShape, cases: z.array(taggedCaseShape) }),
    ),
    async (r) => success(await routes.services.cases.visitorProfiles.get(r.agent, r.body.userID)),
  )
  routes.post(
    `${PREFIX}/case/assign`,
    describe('Give a case to an agent (admins)', assignRequest, z.object({ case: taggedCaseShape })),
    async (r) => success({ case: await cases.assign(r.agent, r.body.id, r.body.agentAccountID) }),
  )
  routes.post(
    `${PREFIX}/case/transfer`,
    describe(
      "Pass your case to another agent or to a topic's queue; move a waiting case of your topic to another topic",
      transferRequest,
      z.object({ case: taggedCaseShape }),
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
    `${PREFIX}/case/typing`,
    describe('Tell the visitor of your case that you are typing (or stopped)', typingRequest, z.object({})),
    async (r) => {
      await cases.typing(r.agent, r.body.id, r.body.typing)
      return success({})
    },
  )
  routes.post(
    `${PREFIX}/case/mark_read`,
    describe(
      "Mark the visitor's messages of your case read (up to messageID, or all)",
      markReadRequest,
      z.object({}),
    ),
    async (r) => {
      await cases.markRead(r.agent, r.body.id, r.body.messageID || undefined)
      return success({})
    },
  )
  routes.post(
    `${PREFIX}/case/close`,
    describe('Close a case', caseRequest, z.object({ case: taggedCaseShape })),
    async (r) => success({ case: await cases.close(r.agent, r.body.id) }),
  )
}
