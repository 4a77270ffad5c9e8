import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { caseRequest } from '../../contract/cases.js'
import { caseEmailShape } from '../../contract/mailbox.js'
import { success } from '../../http/envelope.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describe } from './describe.js'

/** An e-mail case's mails for the console: subject, from, to, and the HTML to show sandboxed. */
export async function caseEmailsAPI(fastify: FastifyInstance): Promise<void> {
  const routes = fastify.withTypeProvider<ZodTypeProvider>()
  routes.post(
    '/api/agent/v1/case/get_emails',
    describe(
      "A case's e-mails (the newest 50), oldest first: subject, from, to and HTML; none for app cases",
      caseRequest,
      z.object({ emails: z.array(caseEmailShape) }),
    ),
    async (r) => success({ emails: await routes.services.email.threads.ofCase(r.agent, r.body.id) }),
  )
}
