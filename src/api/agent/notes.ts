import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import {
  mentionListRequest,
  mentionReadRequest,
  mentionShape,
  noteRequest,
  noteShape,
} from '../../contract/notes.js'
import { success } from '../../http/envelope.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describe, PREFIX } from './describe.js'

/** Internal notes on cases and mentions of agents, in the signed-in scope of the agent API. */
export async function agentNotesAPI(signedIn: FastifyInstance): Promise<void> {
  const routes = signedIn.withTypeProvider<ZodTypeProvider>()
  const { notes } = routes.services
  routes.post(
    `${PREFIX}/case/add_note`,
    describe(
      'Write an internal note on a case (agents only; never seen by the visitor or the chatbot); @mentions notify colleagues',
      noteRequest,
      z.object({ note: noteShape }),
    ),
    async (r) =>
      success({ note: await notes.add(r.agent, r.body.id, { localID: r.body.localID, text: r.body.text }) }),
  )
  routes.post(
    `${PREFIX}/mention/get_list`,
    describe(
      'Notes that mention you, newest first, and how many you have not read',
      mentionListRequest,
      z.object({ mentions: z.array(mentionShape), unread: z.number().int() }),
    ),
    async (r) =>
      success(await notes.mentions(r.agent, { limit: r.body.limit, unreadOnly: r.body.unreadOnly === true })),
  )
  routes.post(
    `${PREFIX}/mention/mark_read`,
    describe(
      'Mark your mentions read: those in a case, or all',
      mentionReadRequest,
      z.object({ unread: z.number().int() }),
    ),
    async (r) => success(await notes.markRead(r.agent, r.body.caseID || undefined)),
  )
}
