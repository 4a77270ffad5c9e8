import type { FastifyInstance } from 'fastify'
import { reportRequest, reportShape } from '../../contract/reports.js'
import { success } from '../../http/envelope.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describe, PREFIX } from './describe.js'

/** Support reports, in the signed-in scope of the agent API. */
export async function agentReportsAPI(signedIn: FastifyInstance): Promise<void> {
  const routes = signedIn.withTypeProvider<ZodTypeProvider>()
  routes.post(
    `${PREFIX}/report/get`,
    describe(
      'Cases opened, handed over and closed, median first response and resolution times, and ratings, per local day, topic or agent (admins: everyone; agents: their own cases)',
      reportRequest,
      reportShape,
    ),
    async (r) => {
      const { body } = r
      return success(
        await routes.services.reports.report(r.agent, {
          from: body.from,
          to: body.to,
          timeZone: body.timeZone || 'UTC',
          by: body.by ?? 'day',
          topicID: body.topicID || undefined,
          agentAccountID: body.agentAccountID || undefined,
        }),
      )
    },
  )
}
