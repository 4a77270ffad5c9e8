import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { agentActor, requireAdmin } from '../../domain/audit/actor.js'
import { MAX_EDIT_WINDOW_SECONDS } from '../../domain/messages/message-edits.js'
import { success } from '../../http/envelope.js'
import { params, requiredID, requiredInteger } from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describeAdmin } from './admin.js'

const PREFIX = '/api/agent/v1/admin'

const settingsShape = z.object({
  editWindowSeconds: z
    .number()
    .int()
    .describe('How long after sending its sender may edit a message (s); 0: never.'),
  keepEditedOriginals: z
    .boolean()
    .describe('Whether each text an edit replaces is kept (message_edits/list).'),
})
const settingsSet = params({
  editWindowSeconds: requiredInteger({
    min: 0,
    max: MAX_EDIT_WINDOW_SECONDS,
    description: 'Seconds, 0 (edits off) to 31536000 (a year); default 900.',
  }),
  keepEditedOriginals: (name) =>
    z.boolean({ error: `Param '${name}' must be a boolean` }).describe('Keep each text an edit replaces.'),
})
const originalsShape = z.object({
  edits: z.array(
    z.object({
      replaced: z.number().int().describe('When an edit replaced it (epoch ms).'),
      body: z.string(),
      data: z.record(z.string(), z.unknown()),
    }),
  ),
})

/** The organization's rules for editing messages, and the texts edits replaced (admins). */
export async function messageSettingsAPI(fastify: FastifyInstance): Promise<void> {
  fastify.addHook('preHandler', async (request) => requireAdmin(agentActor(request.agent)))
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { edits } = app.services.messageActions
  const nothing = params({})

  app.post(
    `${PREFIX}/message_settings/get`,
    describeAdmin('How your organization’s people may edit their messages', nothing, settingsShape),
    async (r) => success(await edits.getSettings(agentActor(r.agent), r.agent.organizationID)),
  )
  app.post(
    `${PREFIX}/message_settings/set`,
    describeAdmin(
      'Choose how your organization’s people may edit their messages',
      settingsSet,
      settingsShape,
    ),
    async (r) => success(await edits.setSettings(agentActor(r.agent), r.agent.organizationID, r.body)),
  )
  app.post(
    `${PREFIX}/message_edits/list`,
    describeAdmin(
      'The texts edits replaced in a message, oldest first (kept while keepEditedOriginals is on)',
      params({ messageID: requiredID() }),
      originalsShape,
    ),
    async (r) =>
      success({
        edits: await edits.originals(agentActor(r.agent), r.agent.organizationID, r.body.messageID),
      }),
  )
}
