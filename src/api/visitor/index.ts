import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { caseRating, caseRequest, caseShape, visitorCaseMessage } from '../../contract/cases.js'
import { messageShape } from '../../contract/chat.js'
import { requireClient } from '../../contract/client-auth.js'
import { topicShape } from '../../contract/organization.js'
import { uploadRoute } from '../../contract/uploads.js'
import { caseContent } from '../../domain/cases/case.js'
import { documentSecurity, SECURITY } from '../../http/docs.js'
import { errorEnvelope, success, successEnvelope } from '../../http/envelope.js'
import { optionalInteger, params, requiredText } from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'

const PREFIX = '/api/visitor/v1/client'

const createCase = params({
  topicID: optionalInteger({
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    fallback: 0,
    description: 'Absent or 0: the default topic.',
  }),
  message: requiredText({ max: 20_000, description: "The visitor's first message." }),
})
const empty = params({})

const errors = {
  404: errorEnvelope('40401: no such case (or topic) of yours', {
    status: 404,
    code: '40401',
    message: 'case not found',
  }),
  409: errorEnvelope('40901: too many open cases, the case is closed, or (rating) the case is not closed', {
    status: 409,
    code: '40901',
    message: 'too many open cases',
  }),
}

/**
 * The visitor API (docs/reference/cases.md): topics and the visitor's own support cases. The case's messages
 * are also in its room, readable with the chat API and delivered over /connect.
 */
export async function visitorAPI(fastify: FastifyInstance): Promise<void> {
  fastify.addHook('onRequest', requireClient)
  documentSecurity(fastify, SECURITY.client)
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { topics } = app.services
  const cases = app.services.cases.visitorCases
  const describe = <B, R extends z.ZodType>(summary: string, body: B, data: R) => ({
    schema: { summary, tags: ['visitor'], body, response: { 200: successEnvelope(data), ...errors } },
  })
  const oneCase = z.object({ case: caseShape })

  app.post(
    `${PREFIX}/topic/get_list`,
    describe(
      'Topics of your organization',
      empty,
      z.object({ topics: z.array(topicShape.pick({ topicID: true, name: true })) }),
    ),
    async (r) =>
      success({
        topics: (await topics.list(r.client.organizationID)).map(({ topicID, name }) => ({ topicID, name })),
      }),
  )
  app.post(`${PREFIX}/case/create`, describe('Open a support case', createCase, oneCase), async (r) =>
    success({
      case: await cases.create(r.client, { topicID: r.body.topicID || undefined, message: r.body.message }),
    }),
  )
  app.post(
    `${PREFIX}/case/get_list`,
    describe('Your cases, newest first', empty, z.object({ cases: z.array(caseShape) })),
    async (r) => success({ cases: await cases.list(r.client) }),
  )
  app.post(`${PREFIX}/case/get_by_id`, describe('One of your cases', caseRequest, oneCase), async (r) =>
    success({ case: await cases.get(r.client, r.body.id) }),
  )
  app.post(
    `${PREFIX}/case/send_message`,
    describe(
      'Write in your case, or choose a quick reply (idempotent on localID)',
      visitorCaseMessage,
      z.object({ message: messageShape }),
    ),
    async (r) =>
      success({
        message: await cases.send(r.client, r.body.id, {
          localID: r.body.localID,
          content: caseContent(r.body),
          interactive: r.body.interactive,
        }),
      }),
  )
  app.post(`${PREFIX}/case/close`, describe('Close your case', caseRequest, oneCase), async (r) =>
    success({ case: await cases.close(r.client, r.body.id) }),
  )
  app.post(
    `${PREFIX}/case/rate`,
    describe(
      'Rate your closed case, 1 to 5 with a note (a new rating replaces the last)',
      caseRating,
      oneCase,
    ),
    async (r) =>
      success({
        case: await cases.rate(r.client, r.body.id, { rating: r.body.rating, note: r.body.note ?? '' }),
      }),
  )
  uploadRoute(app, `${PREFIX}/file/upload`, {
    tags: ['visitor'],
    uploader: (r) => ({ organizationID: r.client.organizationID, senderID: r.client.userID }),
  })
}
