import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { mailboxShape } from '../../contract/mailbox.js'
import { agentActor, requireAdmin } from '../../domain/audit/actor.js'
import { success } from '../../http/envelope.js'
import { optionalInteger, optionalText, params, requiredText } from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describeAdmin } from './admin.js'

const PREFIX = '/api/agent/v1/admin/mailbox'

const server = z
  .object({
    host: z.string().max(253),
    port: z.number().int().min(1).max(65535),
    secure: z.boolean(),
    user: z.string().max(255),
    password: z.string().max(1024).optional().describe('Omitted: the stored one is kept; empty: none.'),
    ca: z
      .string()
      .max(16_384)
      .optional()
      .describe(
        "A certificate authority's certificate (PEM) to trust for this server besides the system's (a private CA); omitted: none. Not a certificate: 400/40002.",
      ),
  })
  .optional()

const connectRequest = params({
  address: requiredText({ max: 254, description: 'The mailbox address, e.g. support@shop.example.' }),
  displayName: optionalText({ max: 100 }),
  smtp: () => server.describe('The SMTP server replies go out through.'),
  imap: () => server.describe('The IMAP server mail is fetched from (optional).'),
  continuityMinutes: optionalInteger({ min: 0, max: 10_080, fallback: 10 }),
})

/** The admin API's mailbox: connect it (or change it) and read its settings and health. */
export async function mailboxAPI(fastify: FastifyInstance): Promise<void> {
  fastify.addHook('preHandler', async (request) => requireAdmin(agentActor(request.agent)))
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { mailboxes } = app.services.email
  const admin = (request: FastifyRequest) => agentActor(request.agent)
  app.post(
    `${PREFIX}/get`,
    describeAdmin(
      "The organization's mailbox: settings (no passwords) and health; null until connected",
      params({}),
      z.object({ mailbox: mailboxShape.nullable() }),
    ),
    async (r) => success({ mailbox: await mailboxes.get(admin(r), r.agent.organizationID) }),
  )
  app.post(
    `${PREFIX}/connect`,
    describeAdmin(
      'Connect the mailbox, or change its settings',
      connectRequest,
      z.object({ mailbox: mailboxShape }),
    ),
    async (r) => success({ mailbox: await mailboxes.connect(admin(r), r.agent.organizationID, r.body) }),
  )
}
