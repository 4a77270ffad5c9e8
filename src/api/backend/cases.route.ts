import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { caseShape } from '../../contract/cases.js'
import { CASE_STATUSES } from '../../domain/cases/case.js'
import { success } from '../../http/envelope.js'
import {
  optionalInteger,
  optionalText,
  params,
  requiredChoice,
  requiredID,
  requiredText,
} from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { serverRoute } from './server-route.js'

const CASE_EXAMPLE = { caseID: '4954104C22' }

const caseCreateRequest = params(
  {
    userID: optionalText({ max: 64, description: 'The visitor (userID); or give xcUserID.' }),
    xcUserID: optionalText({
      max: 50,
      description: "(105) The visitor's ID in your system, when userID is absent.",
    }),
    topicID: optionalInteger({
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
      fallback: 0,
      description: 'Absent or 0: the default topic.',
    }),
    message: requiredText({ max: 20_000, description: "The case's first message, as the visitor's." }),
  },
  {
    codes: { xcUserID: '105' },
    examples: [{ xcUserID: 'customer-user-1001', message: 'Contact form: where is my parcel?' }],
  },
)
const caseListRequest = params(
  {
    userID: optionalText({ max: 64, description: "Only this visitor's cases." }),
    status: (name: string) => requiredChoice(CASE_STATUSES)(name).optional(),
    before: optionalText({
      max: 64,
      description: 'Paging: the caseID of the last case of the previous page.',
    }),
    limit: optionalInteger({ min: 1, max: 100, fallback: 50, description: 'Page size, 1-100 (default 50).' }),
  },
  { examples: [{ status: 'queued', limit: 50 }] },
)
const serverCaseRequest = params({ caseID: requiredID('The case.') }, { examples: [CASE_EXAMPLE] })

const oneCase = z.object({ case: caseShape })

/** Support cases of the organization (server API). */
export function caseRoutes(fastify: FastifyInstance): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { cases, userAccounts } = app.services
  const org = (r: FastifyRequest) => r.serverKey.organizationID

  app.post(
    '/v1/server/case/create',
    serverRoute(
      "Open a case on a visitor's behalf (a contact form, say): as if they had opened it",
      caseCreateRequest,
      oneCase,
    ),
    async (r) => {
      const { userID, xcUserID, ...input } = r.body
      const visitor = await userAccounts.active(org(r), { userID, xcUserID })
      return success({ case: await cases.serverCases.create(org(r), visitor, input) })
    },
  )
  app.post(
    '/v1/server/case/get_list',
    serverRoute(
      "Your organization's cases (or one visitor's), newest first",
      caseListRequest,
      z.object({ cases: z.array(caseShape), hasMore: z.boolean() }),
    ),
    async (r) => success(await cases.serverCases.list(org(r), r.body)),
  )
  app.post(
    '/v1/server/case/get',
    serverRoute('A case of your organization', serverCaseRequest, oneCase),
    async (r) => success({ case: await cases.serverCases.get(org(r), r.body.caseID) }),
  )
  app.post(
    '/v1/server/case/close',
    serverRoute(
      'Close a case (closedBy system); closing a closed case changes nothing',
      serverCaseRequest,
      oneCase,
    ),
    async (r) => success({ case: await cases.serverCases.close(org(r), r.body.caseID) }),
  )
}
