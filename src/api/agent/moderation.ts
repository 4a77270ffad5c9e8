import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { moderationReportShape } from '../../contract/chat-features.js'
import { agentActor } from '../../domain/audit/actor.js'
import { REPORT_ACTIONS } from '../../domain/moderation/moderation-report.js'
import { errorEnvelope, success } from '../../http/envelope.js'
import { optionalText, params, requiredChoice, requiredID } from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describe, PREFIX } from './describe.js'

const listRequest = params({
  status: requiredChoice(['open', 'resolved'], 'The open queue, or what was resolved.'),
  beforeID: optionalText({
    max: 64,
    description: 'Paging: the reportID of the last report of the previous page.',
  }),
})
const resolveRequest = params({
  reportID: requiredID('The report.'),
  action: requiredChoice(
    REPORT_ACTIONS,
    'resolve; delete_message (then resolve); deactivate_user (then resolve).',
  ),
})

const adminErrors = {
  403: errorEnvelope('40301: admins only (or CSRF token missing)', {
    status: 403,
    code: '40301',
    message: 'admins only',
  }),
  404: errorEnvelope('40401: no such report in your organization', {
    status: 404,
    code: '40401',
    message: 'Report 325132386281046016 not found',
  }),
}

/** Moderation reports in the signed-in agent API: the queue and its resolutions, for admins. */
export async function agentModerationAPI(signedIn: FastifyInstance): Promise<void> {
  const routes = signedIn.withTypeProvider<ZodTypeProvider>()
  const { moderation } = routes.services
  const admin = <B, R extends z.ZodType>(summary: string, body: B, data: R) => {
    const { schema } = describe(summary, body, data)
    return { schema: { ...schema, response: { ...schema.response, ...adminErrors } } }
  }
  routes.post(
    `${PREFIX}/moderation_report/get_list`,
    admin(
      "Users' reports of messages and users, newest first, 50 a page (admins)",
      listRequest,
      z.object({ reports: z.array(moderationReportShape), hasMore: z.boolean() }),
    ),
    async (r) => success(await moderation.list(agentActor(r.agent), r.agent.organizationID, r.body)),
  )
  routes.post(
    `${PREFIX}/moderation_report/resolve`,
    admin(
      'Resolve a report, deleting the message or deactivating the user first if asked (admins; audited)',
      resolveRequest,
      z.object({ report: moderationReportShape }),
    ),
    async (r) =>
      success({ report: await moderation.resolve(agentActor(r.agent), r.body.reportID, r.body.action) }),
  )
}
