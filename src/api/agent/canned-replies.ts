import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import {
  cannedReplyCreateRequest,
  cannedReplyListRequest,
  cannedReplyRequest,
  cannedReplyShape,
  cannedReplyUpdateRequest,
  listedCannedReplyShape,
} from '../../contract/canned-replies.js'
import { agentActor } from '../../domain/audit/actor.js'
import { errorEnvelope, success } from '../../http/envelope.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describe, PREFIX } from './describe.js'

/** The errors of a canned reply's change, beside those of every agent route. */
const changeErrors = {
  400: errorEnvelope('40002: a parameter is missing or invalid (`error.field` names it)', {
    status: 400,
    code: '40002',
    message: "Param 'shortcut' is invalid",
    field: 'shortcut',
  }),
  403: errorEnvelope('40301: admins only (or CSRF token missing)', {
    status: 403,
    code: '40301',
    message: 'admins only',
  }),
  404: errorEnvelope('40401: no such canned reply in your organization', {
    status: 404,
    code: '40401',
    message: 'Canned reply 0A1B2C not found',
  }),
  409: errorEnvelope('40901: another canned reply of the organization has this shortcut', {
    status: 409,
    code: '40901',
    message: "Shortcut '/refund' is taken by another canned reply",
    field: 'shortcut',
  }),
}

/** An admin route's schema: as every agent route's, with the errors of a change. */
const describeChange = <B, R extends z.ZodType>(summary: string, body: B, data: R) => {
  const { schema } = describe(summary, body, data)
  return { schema: { ...schema, response: { ...schema.response, ...changeErrors } } }
}

/** Canned replies in the signed-in agent API: every agent lists them, admins manage them. */
export async function agentCannedRepliesAPI(signedIn: FastifyInstance): Promise<void> {
  const routes = signedIn.withTypeProvider<ZodTypeProvider>()
  const { cannedReplies } = routes.services
  routes.post(
    `${PREFIX}/canned_reply/get_list`,
    describe(
      "Your organization's canned replies by shortcut; with caseID, each filled in for that case (`rendered`)",
      cannedReplyListRequest,
      z.object({ cannedReplies: z.array(listedCannedReplyShape) }),
    ),
    async (r) => success({ cannedReplies: await cannedReplies.list(r.agent, r.body) }),
  )
  routes.post(
    `${PREFIX}/canned_reply/create`,
    describeChange(
      'Create a canned reply (admins)',
      cannedReplyCreateRequest,
      z.object({ cannedReply: cannedReplyShape }),
    ),
    async (r) =>
      success({
        cannedReply: await cannedReplies.create(agentActor(r.agent), r.agent.organizationID, r.body),
      }),
  )
  routes.post(
    `${PREFIX}/canned_reply/update`,
    describeChange(
      "Change a canned reply's shortcut, title or text: what is given (admins)",
      cannedReplyUpdateRequest,
      z.object({ cannedReply: cannedReplyShape }),
    ),
    async (r) => {
      const { cannedReplyID, ...changes } = r.body
      return success({ cannedReply: await cannedReplies.update(agentActor(r.agent), cannedReplyID, changes) })
    },
  )
  routes.post(
    `${PREFIX}/canned_reply/delete`,
    describeChange('Delete a canned reply (admins)', cannedReplyRequest, z.object({})),
    async (r) => {
      await cannedReplies.delete(agentActor(r.agent), r.body.cannedReplyID)
      return success({})
    },
  )
}
